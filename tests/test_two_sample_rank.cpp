// The exact two-sample rank test of the attention error-law lines
// (stats/two_sample_rank.h): its tails against brute-force enumeration of
// every ordering, its level with ties (conservative), Hoeffding's bound
// beyond the exact range, and its power on a shifted sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "error_kinds.h"
#include "stats/two_sample_rank.h"

namespace poslsh {
namespace {

// P(U >= u) by listing every placement of m tested among m + k ranks.
double brute_tail(std::size_t m, std::size_t k, std::size_t u) {
  std::vector<int> is_x(m + k, 0);
  std::fill(is_x.begin(), is_x.begin() + static_cast<long>(m), 1);
  std::sort(is_x.begin(), is_x.end());
  double hits = 0, total = 0;
  do {
    std::size_t count = 0, ys_below = 0;  // ranks ascending
    for (int v : is_x) {
      if (v) count += ys_below;
      else ++ys_below;
    }
    hits += count >= u;
    total += 1;
  } while (std::next_permutation(is_x.begin(), is_x.end()));
  return hits / total;
}

TEST(TwoSampleRank, TailsMatchEveryOrdering) {
  for (std::size_t m : {1, 2, 3, 5})
    for (std::size_t k : {1, 2, 4, 6})
      for (std::size_t u = 0; u <= m * k + 1; ++u)
        EXPECT_NEAR(stats::rank_upper_tail(m, k, u), brute_tail(m, k, u), 1e-12)
            << "m=" << m << " k=" << k << " u=" << u;
}

TEST(TwoSampleRank, SmallestPAndTrialsNeeded) {
  EXPECT_NEAR(stats::smallest_rank_p(17, 17), 2.0 / 2333606220.0, 1e-18);  // 2 / C(34, 17)
  EXPECT_EQ(stats::rank_test_trials_needed(0.05), 4u);                      // 2 / C(8, 4) = 0.029
  EXPECT_EQ(stats::rank_test_trials_needed(2.7e-6), 12u);  // 2/C(22,11) = 2.8e-6, 2/C(24,12) = 7.4e-7
  // Beyond the exact range Hoeffding's bound: 2 exp(-min(m, k) / 2).
  EXPECT_FALSE(stats::two_sample_rank_test(std::vector<double>(100, 1.0), std::vector<double>(100, 0.0))
                   .exact);
  EXPECT_NEAR(stats::smallest_rank_p(100, 100), 2 * std::exp(-50.0), 1e-30);
}

TEST(TwoSampleRank, SeparatedSamplesRejectAndTiesCountForNeither) {
  std::vector<double> x(10), y(10);
  std::iota(x.begin(), x.end(), 100.0);
  std::iota(y.begin(), y.end(), 0.0);
  stats::RankTest r = stats::two_sample_rank_test(x, y);
  EXPECT_EQ(r.above, 100u);
  EXPECT_EQ(r.below, 0u);
  EXPECT_NEAR(r.p, 2.0 / 184756.0, 1e-15);  // 2 / C(20, 10)
  r = stats::two_sample_rank_test(y, x);
  EXPECT_NEAR(r.p, 2.0 / 184756.0, 1e-15);
  // All values equal (no block boundary in any trial): nothing to reject.
  r = stats::two_sample_rank_test(std::vector<double>(10, 0.3), std::vector<double>(10, 0.3));
  EXPECT_EQ(r.above + r.below, 0u);
  EXPECT_EQ(r.p, 1.0);
}

// The level, simulated: i.i.d. samples with many ties (a law with atoms)
// reject at a = 0.05 no more often than 5% (plus Monte Carlo error).
TEST(TwoSampleRank, LevelHoldsWithTies) {
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> atom(0, 3);
  int rejections = 0;
  const int runs = 4000;
  for (int run = 0; run < runs; ++run) {
    std::vector<double> x(8), y(8);
    for (auto& v : x) v = atom(gen);
    for (auto& v : y) v = atom(gen);
    rejections += stats::two_sample_rank_test(x, y).p <= 0.05;
  }
  // Binomial(4000, 0.05) exceeds 260 with probability < 1e-3.
  EXPECT_LE(rejections, 260);
}

TEST(TwoSampleRank, ShiftedSampleIsDetected) {
  std::mt19937_64 gen(11);
  std::normal_distribution<double> normal;
  std::vector<double> x(17), y(17);
  for (auto& v : x) v = normal(gen) + 3;
  for (auto& v : y) v = normal(gen);
  EXPECT_LT(stats::two_sample_rank_test(x, y).p, 1e-6);
}

TEST(TwoSampleRank, BadInputThrows) {
  // Its callers (the attention checks) pass finite, non-empty samples.
  testing::expect_broken_invariant(
      [] { stats::two_sample_rank_test(std::vector<double>{}, std::vector<double>{1}); });
  testing::expect_broken_invariant(
      [] { stats::two_sample_rank_test(std::vector<double>{NAN}, std::vector<double>{1}); });
  testing::expect_broken_invariant([] { stats::rank_test_trials_needed(0); });
}

}  // namespace
}  // namespace poslsh
