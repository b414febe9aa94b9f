// Co-binning counts and statistics (experiments/unbiasedness/cobinning.h, src/stats/) against brute force and closed forms.
#include <gtest/gtest.h>
#include <poslsh/pitch_law.h>
#include <poslsh/positional_hash.h>
#include <poslsh/rng.h>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>

#include "error_kinds.h"
#include "experiments/unbiasedness/cobinning.h"
#include "experiments/unbiasedness/consumer_cobinning.h"
#include "stats/binomial.h"
#include "stats/chernoff.h"
#include "stats/dispersion.h"

namespace poslsh {
namespace {

TEST(Cobinning, BlockBeginAndEndAgreeWithBlockStarts) {
  for (std::uint64_t k = 0; k < 200; ++k) {
    const double sigma = k % 3 == 0 ? 0.3 : k % 3 == 1 ? 3.0 : 40.0;
    const PositionalHash h = draw_hash(7, 0, k, sigma);
    const std::int64_t n = 300;
    const auto starts = block_starts(h, n);
    for (std::size_t b = 0; b + 1 < starts.size(); ++b)
      for (std::int64_t i = starts[b]; i < starts[b + 1]; ++i) {
        ASSERT_EQ(block_begin(h, i), starts[b]) << "k=" << k << " i=" << i;
        ASSERT_EQ(block_end(h, i, n), starts[b + 1]) << "k=" << k << " i=" << i;
      }
  }
}

TEST(Cobinning, RunCountsPositionsSharingTheAnchorsBin) {
  const std::int64_t n = 101;
  for (std::uint64_t k = 0; k < 300; ++k) {
    const PositionalHash h = draw_hash(3, 1, k, 6.0);
    for (CobinRegion region : all_cobin_regions()) {
      const std::int64_t a = cobin_anchor(region, n);
      const int dir = region == CobinRegion::kEnd ? -1 : 1;
      std::int64_t run = 0;
      for (std::int64_t i = a; i >= 0 && i < n && h.bin(i) == h.bin(a); i += dir) ++run;
      ASSERT_EQ(cobin_run(h, region, n), run) << cobin_region_name(region) << " k=" << k;
    }
  }
}

// The consumers' probes (experiments/unbiasedness/consumer_cobinning.h) against the dense
// oracle h.bin: every consumer reads exactly the hash's co-binning, at every
// anchor and offset; the planted causal bug changes the causal consumers'
// reading for some hash and never the symmetric ones'.
TEST(Cobinning, ConsumersReadTheHashBlocksAndTheCausalBugShows) {
  const std::int64_t n = 64;
  const std::vector<std::int64_t> offsets = {1, 2, 3, 5, 8, 13, 21, 31};
  int bug_seen[4] = {0, 0, 0, 0};
  for (std::uint64_t k = 0; k < 60; ++k) {
    const PositionalHash h = draw_hash(9, 0, k, k % 2 ? 2.0 : 7.0);
    std::array<std::vector<bool>, 3> oracle;
    for (std::size_t r = 0; r < 3; ++r) {
      const std::int64_t a = cobin_anchor(all_cobin_regions()[r], n);
      const std::int64_t dir = r == 2 ? -1 : 1;
      for (const auto t : offsets) oracle[r].push_back(h.bin(a + dir * t) == h.bin(a));
    }
    for (std::size_t c = 0; c < all_cobin_consumers().size(); ++c) {
      const CobinConsumer consumer = all_cobin_consumers()[c];
      ASSERT_EQ(consumer_cobinned(consumer, h, n, offsets), oracle)
          << cobin_consumer_name(consumer) << " k=" << k;
      bug_seen[c] +=
          consumer_cobinned(consumer, h, n, offsets, BinningBug::kCausalMaskShift) != oracle;
    }
  }
  EXPECT_EQ(bug_seen[0], 0);  // mask
  EXPECT_GT(bug_seen[1], 0);  // mask-causal
  EXPECT_EQ(bug_seen[2], 0);  // attention
  EXPECT_GT(bug_seen[3], 0);  // attention-causal
  testing::expect_broken_invariant(
      [&] { consumer_cobinned(CobinConsumer::kMask, draw_hash(9, 0, 0, 2.0), n, {32}); });
}

// The identity behind the whole family: integrating P(i, i+t co-binned | delta)
// = (1 - t/delta)_+ over the Gamma(2, sigma) pitch law gives exp(-t/sigma).
TEST(Cobinning, ProbabilityIsTheGammaMixtureOfOneMinusTOverDelta) {
  for (const double sigma : {0.5, 3.0, 64.0})
    for (const std::int64_t t : {1, 2, 7, 40}) {
      const PitchLaw law(sigma);
      const auto f = [&](double d) { return (1 - static_cast<double>(t) / d) * pdf(law, d); };
      const double integral = boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
          f, static_cast<double>(t), std::numeric_limits<double>::infinity(), 15, 1e-12);
      EXPECT_NEAR(integral, cobin_probability(sigma, t), 1e-10) << sigma << " " << t;
    }
}

TEST(Cobinning, OffsetsAreDistinctIncreasingAndFitTheRange) {
  EXPECT_EQ(cobin_offsets(1000, 1.0, 24), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  const auto t = cobin_offsets(100, 16.0, 24);  // room: 100/2 - 1 = 49
  EXPECT_EQ(t.back(), 49);
  for (std::size_t i = 1; i < t.size(); ++i) EXPECT_LT(t[i - 1], t[i]);
  EXPECT_EQ(cobin_offsets(1 << 20, 64.0, 24).size(), 25u);  // t = 1 and 24 spread
  EXPECT_EQ(cobin_offsets(1 << 20, 16.0, 24).front(), 1);   // the spread ones are 4, 8, ...
  EXPECT_THROW(cobin_offsets(3, 1.0, 24), std::invalid_argument);
  EXPECT_THROW(cobin_offsets(100, -1.0, 24), std::invalid_argument);
  EXPECT_THROW(cobin_offsets(100, 1.0, 0), std::invalid_argument);
  EXPECT_THROW(parse_cobin_region("centre"), std::invalid_argument);
}

TEST(Cobinning, CountsHoldBackAPartialBatch) {
  CobinCounts c({1, 3}, 2);
  for (const std::int64_t run : {1, 2, 4, 4, 5}) c.add_run(run);
  EXPECT_EQ(c.hashes(), 4);
  // runs 1,2 | 4,4: t=1 co-binned when run > 1 -> 0+1 | 1+1; t=3 -> 0 | 2.
  EXPECT_EQ(c.cobinned(), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(c.batch_sumsq(), (std::vector<std::int64_t>{1 + 4, 0 + 4}));
}

TEST(Cobinning, TwoSidedBinomialPValueMatchesNaiveSums) {
  const std::int64_t h = 30;
  const double p = 0.3;
  const boost::math::binomial_distribution<double> b(h, p);
  for (std::int64_t k = 0; k <= h; ++k) {
    double lo = 0, hi = 0;
    for (std::int64_t j = 0; j <= h; ++j) {
      const double pj = boost::math::pdf(b, static_cast<double>(j));
      if (j <= k) lo += pj;
      if (j >= k) hi += pj;
    }
    EXPECT_NEAR(stats::binomial_two_sided_p(k, h, p), std::min(1.0, 2 * std::min(lo, hi)), 1e-12) << k;
  }
}

// The exact law of a sum of `count` i.i.d. copies of an integer-valued law, by
// convolution: the oracle of the Chernoff bound at small counts.
std::vector<double> exact_sum_law(const stats::FiniteLaw& law, int count) {
  std::vector<double> dist = {1.0};
  for (int c = 0; c < count; ++c) {
    std::vector<double> next(dist.size() + law.value.size() - 1, 0.0);
    for (std::size_t i = 0; i < dist.size(); ++i)
      for (std::size_t j = 0; j < law.value.size(); ++j)
        next[i + static_cast<std::size_t>(law.value[j])] += dist[i] * law.prob[j];
    dist = std::move(next);
  }
  return dist;
}

// The Chernoff p-value bounds twice the exact tail on each side (its
// validity), and is not loose beyond the polynomial factor of the bound
// (its power): checked against the exact convolution at 40 copies.
TEST(Cobinning, ChernoffBoundHoldsAgainstTheExactTailAndIsNearlyTight) {
  const stats::FiniteLaw law{{0, 1, 2, 3, 4}, {0.4, 0.3, 0.15, 0.1, 0.05}};
  const int count = 40;
  const auto dist = exact_sum_law(law, count);
  const double mean = count * law.mean();
  for (std::size_t s = 0; s < dist.size(); ++s) {
    double upper = 0, lower = 0;
    for (std::size_t j = 0; j < dist.size(); ++j) {
      if (j >= s) upper += dist[j];
      if (j <= s) lower += dist[j];
    }
    const double tail = static_cast<double>(s) >= mean ? upper : lower;
    const double p = stats::chernoff_two_sided_p(law, static_cast<double>(s), count);
    EXPECT_GE(p, std::min(1.0, 2 * tail) * (1 - 1e-9)) << "sum " << s;
    if (tail > 1e-12) {
      EXPECT_LE(p, 2 * tail * 40) << "sum " << s;  // O(sqrt(count)) slack
    }
  }
  // Outside the support: impossible under the null.
  EXPECT_EQ(stats::chernoff_two_sided_p(law, 4.0 * count + 1, count), 0.0);
  // At the edge: exactly twice P(every copy at the maximum).
  EXPECT_NEAR(stats::chernoff_two_sided_p(law, 4.0 * count, count), 2 * std::pow(0.05, count),
              1e-9 * std::pow(0.05, count));
}

// A deliberately loose optimiser would only cost power, but the rate must be
// the supremum: compare with a fine grid over lambda.
TEST(Cobinning, ChernoffCriticalDeviationMatchesTheLevel) {
  const stats::FiniteLaw law{{0, 1, 2, 3, 4}, {0.4, 0.3, 0.15, 0.1, 0.05}};
  for (const double dir : {1.0, -1.0}) {
    const double d = stats::chernoff_critical_deviation(law, 10000, 1e-6, dir);
    EXPECT_NEAR(stats::chernoff_two_sided_p(law, 10000 * (law.mean() + dir * d), 10000), 1e-6, 1e-8);
    // The grid's best lambda gives no smaller bound than the optimiser's.
    double best = 0;
    for (int i = 1; i <= 4000; ++i) {
      const double lambda = dir * i * 1e-4;
      double m = 0;
      for (std::size_t j = 0; j < law.value.size(); ++j)
        m += law.prob[j] * std::exp(lambda * (law.value[j] - law.mean()));
      best = std::max(best, lambda * dir * d - std::log(m));
    }
    EXPECT_NEAR(best, std::log(2 / 1e-6) / 10000, 1e-7);
  }
}

// The pooled statistic's null law from the geometric law of R, summed
// directly: same mean and variance, z of +-1 one sd away, and the p-value is
// the Chernoff bound of that law.
TEST(Cobinning, PooledScaleTestUsesTheExactGeometricLaw) {
  const double sigma = 5;
  const std::vector<std::int64_t> t = {1, 4, 9, 20};
  const double q = std::exp(-1 / sigma);
  double mean = 0, second = 0;
  stats::FiniteLaw law{{0, 1, 2, 3, 4}, {0, 0, 0, 0, 0}};
  for (std::int64_t r = 1; r < 2000; ++r) {
    const double pr = std::pow(q, r - 1) * (1 - q);  // P(R = r)
    double x = 0;
    for (auto ti : t) x += ti < r;
    mean += pr * x;
    second += pr * x * x;
    law.prob[static_cast<std::size_t>(x)] += pr;
  }
  const double var = second - mean * mean;
  const std::int64_t h = 10000;
  const double sd = std::sqrt(h * var);
  // Counts whose total is mean + 1 sd (spread on the first offset).
  std::vector<std::int64_t> counts;
  for (auto ti : t) counts.push_back(std::llround(h * cobin_probability(sigma, ti)));
  double total = 0;
  for (auto c : counts) total += c;
  counts[0] += std::llround(h * mean + sd - total);
  total = 0;
  for (auto c : counts) total += c;
  const double z = (total - h * mean) / sd;  // within 0.5 / sd of 1 (integer counts)
  const auto r = pooled_scale_test(t, counts, h, sigma);
  EXPECT_NEAR(r.z, z, 1e-9);
  EXPECT_NEAR(r.z, 1.0, 0.5 / sd + 1e-12);
  EXPECT_NEAR(r.p_value, stats::chernoff_two_sided_p(law, total, h), 1e-9);
  // Near the mean the bound is 2 exp(-z^2 / 2) to first order.
  EXPECT_NEAR(r.p_value, std::min(1.0, 2 * std::exp(-z * z / 2)), 0.05);
}

// stats::dispersion_test against its definition: the sum of (K_b - m p)^2 and the
// Chernoff bound of the law of (K - m p)^2 under Binomial(m, p).
TEST(Cobinning, DispersionTestIsTheChernoffBoundOfTheBatchLaw) {
  const std::int64_t m = 16;
  const double p = 0.4;
  // 400 batches whose counts alternate 9 and 4 around m p = 6.4.
  const std::int64_t batches = 400;
  std::int64_t k_total = 0, sumsq = 0;
  double observed = 0;
  for (std::int64_t i = 0; i < batches; ++i) {
    const std::int64_t k = i % 2 ? 4 : 9;
    k_total += k;
    sumsq += k * k;
    observed += (k - m * p) * (k - m * p);
  }
  const stats::DispersionTest d = stats::dispersion_test(k_total, sumsq, batches * m, m, p);
  ASSERT_TRUE(d.applicable);
  stats::FiniteLaw law;
  double mu2 = 0, mu4 = 0;
  const boost::math::binomial_distribution<double> b(m, p);
  for (std::int64_t k = 0; k <= m; ++k) {
    const double dev = k - m * p, pk = boost::math::pdf(b, static_cast<double>(k));
    law.value.push_back(dev * dev);
    law.prob.push_back(pk);
    mu2 += pk * dev * dev;
    mu4 += pk * dev * dev * dev * dev;
  }
  EXPECT_NEAR(d.ratio, observed / (batches * mu2), 1e-12);
  EXPECT_NEAR(d.z, (observed - batches * mu2) / std::sqrt(batches * (mu4 - mu2 * mu2)), 1e-9);
  EXPECT_NEAR(d.p_value, stats::chernoff_two_sided_p(law, observed, batches), 1e-12);
  EXPECT_LT(d.p_value, 1e-6);  // over-dispersed: 1.5x the binomial variance
  // Every batch at the null mean's nearest counts: under-dispersed, detected.
  const stats::DispersionTest flat = stats::dispersion_test(6 * batches, 36 * batches, batches * m, m, p);
  EXPECT_LT(flat.p_value, 1e-10);
  // Not applicable where the batch count is nearly always 0.
  EXPECT_FALSE(stats::dispersion_test(1, 1, 1600, 16, 0.01).applicable);
}

TEST(Cobinning, DetectableScaleErrorShrinksLikeOneOverRootH) {
  const auto t = cobin_offsets(1 << 16, 16.0, 24);
  const double e1 = detectable_scale_error(t, 1 << 16, 16.0, 1e-4, 0.99);
  const double e4 = detectable_scale_error(t, 1 << 18, 16.0, 1e-4, 0.99);
  EXPECT_GT(e1, 0.01);
  EXPECT_LT(e1, 0.1);
  EXPECT_NEAR(e1 / e4, 2.0, 0.15);
}

}  // namespace
}  // namespace poslsh
