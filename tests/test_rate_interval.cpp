// The rate test's exact sign test (experiments/checks/rate_interval.h) against
// independent computation, its false-alarm rate on heavy-tailed slopes
// (measured, fixed seeds), its power against an error flat in s, and the
// repeated-trials bound against a Monte Carlo of the sound hash.
//
// False alarms: the simulations use fixed seeds, so every assertion is
// deterministic; each measured rate is compared with its exact bound plus
// four binomial standard errors of the simulation (a fresh seed would
// exceed that with probability about 3e-5).
#include <gtest/gtest.h>
#include <poslsh/positional_hash.h>

#include <cmath>
#include <random>
#include <vector>

#include "experiments/checks/rate_interval.h"
#include "stats/median_interval.h"
#include "stats/binomial.h"

namespace poslsh {
namespace {

// P(Binomial(m, 1/2) >= k) by exact integer counting.
double tail_by_counting(int m, int k) {
  double sum = 0, c = 1;  // c = C(m, i)
  for (int i = 0; i <= m; ++i) {
    if (i >= k) sum += c;
    c = c * (m - i) / (i + 1);
  }
  return std::ldexp(sum, -m);
}

TEST(RateInterval, BinomialTailsAreExact) {
  for (int m : {1, 3, 8, 20, 40})
    for (int k = 0; k <= m + 1; ++k)
      EXPECT_NEAR(stats::half_binomial_tail(m, k), tail_by_counting(m, k), 1e-12 * tail_by_counting(m, 0))
          << m << " " << k;
  EXPECT_EQ(stats::sign_test_trials_needed(1.0 / 256), 8u);
  EXPECT_EQ(stats::sign_test_trials_needed(1.0 / 257), 9u);
  EXPECT_EQ(stats::sign_test_trials_needed(5e-6), 18u);  // 2^-18 = 3.8e-6
}

// Fraction of `tables` simulated tables of m slopes from `draw` that the
// test FAILs at `level`.
template <class Draw>
double sign_test_false_alarm_rate(std::size_t m, double level, int tables, Draw draw) {
  std::mt19937_64 rng(2027);
  int fails = 0;
  std::vector<double> slopes(m);
  for (int t = 0; t < tables; ++t) {
    for (auto& b : slopes) b = draw(rng);
    fails += rate_interval(slopes, level).fails;
  }
  return static_cast<double>(fails) / tables;
}

double four_sim_errors(double p, int tables) { return 4 * std::sqrt(p * (1 - p) / tables); }

// Heavy tails: Cauchy slopes with their median at the band's upper edge
// (the null's worst case: P(slope > -0.4) = 1/2 exactly), and Pareto noise
// (skewed, infinite variance) with its median at -0.5. The sign test's false
// alarm is at most level / 2 per side whatever the law.
TEST(RateInterval, FalseAlarmOnHeavyTailedSlopesIsAtMostTheLevel) {
  const double level = 0.05;
  const int tables = 20000;
  std::cauchy_distribution<double> cauchy(-0.4, 0.3);
  for (std::size_t m : {8, 20, 50}) {
    const double rate =
        sign_test_false_alarm_rate(m, level, tables, [&](auto& rng) { return cauchy(rng); });
    // At the edge the upper side fails with probability exactly
    // P(Binomial(m, 1/2) >= k*), k* the smallest count whose tail is
    // <= level / 2; the lower side (P(slope < -0.6) = 0.31) adds little.
    std::size_t k = 0;
    while (stats::half_binomial_tail(m, k) > level / 2) ++k;
    const double edge = stats::half_binomial_tail(m, k);
    EXPECT_LE(rate, level / 2 + four_sim_errors(level / 2, tables)) << m;
    EXPECT_GE(rate, edge - four_sim_errors(edge, tables)) << m;
  }
  std::uniform_real_distribution<double> u(0, 1);
  const double pareto_median = std::pow(2.0, 1 / 1.2);
  const auto pareto = [&](auto& rng) {
    return -0.5 + 0.05 * (std::pow(1 - u(rng), -1 / 1.2) - pareto_median);
  };
  for (std::size_t m : {8, 20, 50})
    EXPECT_LE(sign_test_false_alarm_rate(m, level, tables, pareto),
              level + four_sim_errors(level, tables))
        << m;
}

// Why the pooled line takes the trial, not the (group, trial) slope, as its
// unit: when the groups of a trial move together (shared hashes), counting
// all G m slopes as independent rejects a sound sampler far more often than
// its level; the sign test on the trial means keeps it.
TEST(RateInterval, DependentGroupsNeedTheTrialAsTheUnit) {
  const double level = 1e-3;
  const int tables = 4000, groups = 12, trials = 16;
  std::mt19937_64 rng(11);
  std::cauchy_distribution<double> cauchy(-0.4, 0.1);  // median at the band's edge
  std::normal_distribution<double> jitter(0, 0.01);
  int naive = 0, by_trial = 0;
  for (int t = 0; t < tables; ++t) {
    std::vector<double> means;
    std::size_t above = 0;
    for (int j = 0; j < trials; ++j) {
      const double shared = cauchy(rng);
      double mean = 0;
      for (int g = 0; g < groups; ++g) {
        const double b = shared + jitter(rng);
        above += b > kRateSlopeHigh;
        mean += b / groups;
      }
      means.push_back(mean);
    }
    naive += stats::half_binomial_tail(groups * trials, above) <= level / 2;
    by_trial += rate_interval(means, level).fails;
  }
  EXPECT_LE(static_cast<double>(by_trial) / tables, level + four_sim_errors(level, tables));
  EXPECT_GT(static_cast<double>(naive) / tables, 0.05);  // 50 times its nominal level
}

TEST(RateInterval, AnErrorFlatInSFails) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> near_zero(-0.1, 0.1);
  std::vector<double> slopes(16);
  for (auto& b : slopes) b = near_zero(rng);
  // 16 trials at level 1e-4: testable (2^-16 <= 5e-5); a flat error fails.
  RateInterval ri = rate_interval(slopes, 1e-4);
  EXPECT_TRUE(ri.testable);
  EXPECT_TRUE(ri.fails) << ri.above << " of 16 above";
  // 8 trials cannot reach that level: not testable, never a FAIL.
  slopes.resize(8);
  ri = rate_interval(slopes, 1e-4);
  EXPECT_FALSE(ri.testable);
  EXPECT_FALSE(ri.fails);
  EXPECT_EQ(ri.trials_needed, 15u);  // 2^-15 = 3.1e-5 <= 5e-5 < 2^-14
  EXPECT_NE(rate_untestable_note(ri).find("needs >= 15"), std::string::npos);
}

TEST(RateInterval, MedianIntervalCoversAtItsStatedRate) {
  // Exponential draws (median ln 2), 15 per interval, level 0.1.
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> e(1);
  const int reps = 20000;
  int missed = 0;
  double coverage = 0;
  std::vector<double> v(15);
  for (int r = 0; r < reps; ++r) {
    for (auto& x : v) x = e(rng);
    const stats::MedianInterval mi = stats::median_interval(v, 0.1);
    missed += !(mi.low <= std::log(2.0) && std::log(2.0) <= mi.high);
    coverage = mi.coverage;
  }
  // k = 4: 2 P(Binomial(15, 1/2) <= 3) = 0.035 <= 0.1 < 2 P(<= 4) = 0.118.
  EXPECT_NEAR(coverage, 1 - 2 * (1 - tail_by_counting(15, 4)), 1e-12);
  EXPECT_GE(coverage, 0.9);
  const double miss = 1 - coverage;
  EXPECT_NEAR(static_cast<double>(missed) / reps, miss, four_sim_errors(miss, reps));
}

// The gaps (i, i + 1], i < n - 1, holding a block boundary of hash h.
std::vector<bool> boundary_gaps(const PositionalHash& h, std::int64_t n) {
  std::vector<bool> out;
  for (std::int64_t i = 0; i + 1 < n; ++i) out.push_back(h.bin(i) != h.bin(i + 1));
  return out;
}

// Monte Carlo of P(two independent sound hashes put the same boundaries in
// [0, n)) against boundary_collision_bound.
TEST(RepeatedTrials, CollisionBoundHoldsForTheSoundHash) {
  const std::vector<std::pair<double, double>> cases = {
      {8, 4}, {16, 4}, {64, 4}, {32, 16}, {16, 256}};
  for (const auto& [n, sigma] : cases) {
    const int pairs = 20000;
    int same = 0;
    for (int k = 0; k < pairs; ++k)
      same += boundary_gaps(draw_hash(1, 0, k, sigma), static_cast<std::int64_t>(n)) ==
              boundary_gaps(draw_hash(1, 1, k, sigma), static_cast<std::int64_t>(n));
    const double rate = static_cast<double>(same) / pairs;
    const double bound = boundary_collision_bound(n, sigma);
    EXPECT_LE(rate, bound + four_sim_errors(bound, pairs)) << n << " " << sigma;
  }
  // No boundary at all dominates when n << sigma: e^(-2(n-1)/sigma) <= c <= 1.
  EXPECT_GE(boundary_collision_bound(16, 256), std::exp(-2 * 15.0 / 256));
  EXPECT_LT(boundary_collision_bound(1024, 8), 2e-3);
}

TEST(RepeatedTrials, FindsIdenticalColumnsAndChargesTheChance) {
  TrialColumns columns;
  for (int t = 0; t < 4; ++t)
    for (double s : {4.0, 16.0, 64.0}) columns[t][s] = {1.0 / (s + t), NAN};
  RepeatedTrials r = find_repeated_trials(columns, 1024, 8, 1e-4);
  EXPECT_FALSE(r.identical);
  EXPECT_TRUE(r.decidable);
  EXPECT_NEAR(r.chance, 6 * 2 * std::pow(boundary_collision_bound(1024, 8), 3), 1e-20);
  columns[3] = columns[1];  // NaN equals NaN: the whole column repeats
  r = find_repeated_trials(columns, 1024, 8, 1e-4);
  ASSERT_TRUE(r.identical);
  EXPECT_EQ(r.identical->first, 1);
  EXPECT_EQ(r.identical->second, 3);
  // Differing at one s is distinct.
  columns[3][16.0][0] += 1e-12;
  EXPECT_FALSE(find_repeated_trials(columns, 1024, 8, 1e-4).identical);
  // n << sigma: a coincidence is too likely to decide.
  EXPECT_FALSE(find_repeated_trials(columns, 16, 256, 1e-4).decidable);
}

}  // namespace
}  // namespace poslsh
