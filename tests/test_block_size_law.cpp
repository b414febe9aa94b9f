// The law of b_max (include/poslsh/block_size_law.h): closed forms, quadrature, Monte
// Carlo, chi-square p-values by hand, and the goodness of fit with negative
// controls. Statistical assertions use fixed seeds; each states its false-alarm
// probability for a fresh seed.
#include <gtest/gtest.h>
#include <poslsh/block_size.h>
#include <poslsh/block_size_law.h>
#include <poslsh/pitch_law.h>
#include <poslsh/positional_hash.h>
#include <poslsh/rng.h>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "experiments/blocksize/blocksize_fit.h"
#include "error_kinds.h"
#include "stats/chi_square.h"

namespace poslsh {
namespace {

constexpr auto kLawTestPurpose = static_cast<StreamPurpose>(0x1a3b10c);

TEST(ExpectedMaxPitch, OneSampleIsTheGammaMean) {
  for (const double sigma : {0.5, 1.0, 16.0, 256.0}) {
    const QuadratureResult q = expected_max_pitch(sigma, 1);
    EXPECT_TRUE(q.converged);
    EXPECT_NEAR(q.value, 2 * sigma, 1e-12 * sigma);  // E[delta] = 2 sigma
  }
}

TEST(ExpectedMaxPitch, TwoSamplesMatchClosedForm) {
  // E[max] = 2 E[delta] - E[min], E[min] = ∫ P(delta > t)^2 dt
  //        = sigma ∫ (1 + x)^2 e^-2x dx = 1.25 sigma, so E[max] = 2.75 sigma.
  for (const double sigma : {1.0, 3.0, 64.0}) {
    EXPECT_NEAR(expected_max_pitch(sigma, 2).value, 2.75 * sigma, 1e-12 * sigma);
  }
}

TEST(ExpectedMaxPitch, AgreesWithExpSinhOnTheDecayingIntegrand) {
  for (const std::int64_t s : {3, 8, 64, 512, 1000000}) {
    const double sd = static_cast<double>(s);
    const auto f = [sd](double x) {
      const double tail_x = (1 + x) * std::exp(-x);
      return -std::expm1(sd * std::log1p(-tail_x));
    };
    boost::math::quadrature::exp_sinh<double> integrator;
    double error = 0;
    const double reference =
        integrator.integrate(f, 0.0, std::numeric_limits<double>::infinity(), 1e-12, &error);
    const QuadratureResult q = expected_max_pitch(1.0, s);
    EXPECT_TRUE(q.converged) << "s=" << s;
    EXPECT_NEAR(q.value, reference, 1e-9 * reference) << "s=" << s;
    // Union-bound sandwich: x_{1/2}-ish lower bound and x_1 + 2 upper bound.
    EXPECT_GT(q.value, union_tail_threshold(sd, 0.5) - 1);
    EXPECT_LT(q.value, union_tail_threshold(sd, std::min(0.999, sd)) + 2);
  }
}

TEST(ExpectedMaxPitch, MatchesMonteCarloOfDrawnPitches) {
  // Max of s pitches drawn by draw_hash; 4.5 standard errors: false alarm ~7e-6.
  const double sigma = 4.0;
  for (const std::int64_t s : {8, 64}) {
    const int trials = 20000;
    double sum = 0, sum_sq = 0;
    for (int t = 0; t < trials; ++t) {
      double mx = 0;
      for (const auto& h : draw_hashes(3, static_cast<std::uint64_t>(t), s, sigma))
        mx = std::max(mx, h.pitch);
      sum += mx;
      sum_sq += mx * mx;
    }
    const double m = sum / trials;
    const double se = std::sqrt((sum_sq / trials - m * m) / trials);
    EXPECT_NEAR(expected_max_pitch(sigma, s).value, m, 4.5 * se) << "s=" << s;
  }
}

TEST(BlockSizeLaw, CdfIsGammaCdfToTheS) {
  const boost::math::gamma_distribution<double> g(2.0, 4.0);
  const BlockSizeLaw law(1 << 20, 4.0, 16);
  for (const std::int64_t b : {1, 2, 5, 13, 40, 90}) {
    const double expected = std::pow(boost::math::cdf(g, static_cast<double>(b)), 16);
    EXPECT_NEAR(cdf(law, b), expected, 1e-13 + 1e-12 * expected) << b;
    EXPECT_NEAR(cdf(law, b) + survival(law, b), 1.0, 1e-14) << b;
  }
  EXPECT_EQ(cdf(law, 0), 0.0);
  // Far tail: survival keeps precision where 1 - cdf would be 0.
  const double far = survival(law, 400);
  EXPECT_GT(far, 0.0);
  EXPECT_NEAR(far, 16 * (1 + 100.0) * std::exp(-100.0), 1e-10 * far);
}

TEST(BlockSizeLaw, ClippedAtNAndSumsToOne) {
  const BlockSizeLaw law(20, 8.0, 4);  // mass beyond 20 piles up on b = n
  EXPECT_EQ(cdf(law, 20), 1.0);
  EXPECT_EQ(survival(law, 20), 0.0);
  EXPECT_NEAR(pmf(law, 20), survival(law, 19), 1e-15);
  double total = 0, first_moment = 0;
  for (std::int64_t b = 1; b <= 20; ++b) {
    total += pmf(law, b);
    first_moment += static_cast<double>(b) * pmf(law, b);
  }
  EXPECT_NEAR(total, 1.0, 1e-14);
  EXPECT_NEAR(mean(law), first_moment, 1e-12);
  EXPECT_EQ(pmf(law, 21), 0.0);
  EXPECT_EQ(quantile(law, 1.0), 20);
}

TEST(BlockSizeLaw, MedianIsCeilOfGammaQuantileOfHalfToTheOneOverS) {
  for (const double sigma : {1.0, 4.0, 16.0, 64.0, 256.0}) {
    for (const std::int64_t s : {1, 8, 64, 512}) {
      const boost::math::gamma_distribution<double> g(2.0, sigma);
      const double t = boost::math::quantile(g, std::pow(0.5, 1.0 / static_cast<double>(s)));
      const BlockSizeLaw law(std::int64_t{1} << 30, sigma, s);
      EXPECT_EQ(median(law), static_cast<std::int64_t>(std::ceil(t)))
          << "sigma=" << sigma << " s=" << s;
    }
  }
}

TEST(BlockSizeLaw, QuantileIsTheSmallestIntegerReachingP) {
  const BlockSizeLaw law(1 << 16, 16.0, 64);
  for (const double p : {1e-9, 0.01, 0.3, 0.5, 0.9, 0.999, 1 - 1e-12}) {
    const std::int64_t q = quantile(law, p);
    EXPECT_GE(cdf(law, q), p);
    EXPECT_LT(cdf(law, q - 1), p);
  }
  EXPECT_THROW(quantile(law, 0.0), std::invalid_argument);
  EXPECT_THROW(quantile(law, 1.5), std::invalid_argument);
}

TEST(BlockSizeLaw, MeanIsCeilOfMaxPitchOnAverage) {
  // E[ceil(D)] lies in [E[D], E[D] + 1); the sum over the integer grid and
  // the quadrature are computed independently.
  for (const double sigma : {1.0, 16.0, 256.0}) {
    for (const std::int64_t s : {1, 64}) {
      const double e = expected_max_pitch(sigma, s).value;
      const double m = mean(BlockSizeLaw(std::int64_t{1} << 30, sigma, s));
      EXPECT_GE(m, e);
      EXPECT_LT(m, e + 1);
    }
  }
}

TEST(BlockSizeBound, MatchesUnionBoundAndHolds) {
  const double sigma = 4.0, p = 0.1;
  const std::int64_t s = 8, n = 1 << 20;
  const std::int64_t bound = b_max_bound(n, sigma, s, p);
  const double x = union_tail_threshold(8.0, p);
  EXPECT_NEAR(8 * (1 + x) * std::exp(-x), p, 1e-12);
  EXPECT_EQ(bound, static_cast<std::int64_t>(std::floor(sigma * x)) + 1);
  EXPECT_EQ(b_max_bound(20, sigma, s, p), 20);  // clipped at n
  // Exceedances ~ Binomial(T, q) with q <= p; q is below 8 * P(delta > sigma x),
  // so T q + 4.5 sd is a bound with false alarm < 1e-5.
  const int trials = 4000;
  int exceed = 0;
  for (int t = 0; t < trials; ++t) {
    const auto hashes = draw_hashes(17, static_cast<std::uint64_t>(t), s, sigma);
    if (b_max(hashes, n) > bound) ++exceed;
  }
  EXPECT_LT(exceed, trials * p + 4.5 * std::sqrt(trials * p * (1 - p)));
  // And the bound is not vacuous: with p = 0.5 the 1 - F^s law says about a
  // third of trials exceed floor(sigma x_{1/2}) + 1 (union bound is loose).
  const std::int64_t loose = b_max_bound(n, sigma, s, 0.5);
  int above = 0;
  for (int t = 0; t < trials; ++t) {
    if (b_max(draw_hashes(17, static_cast<std::uint64_t>(t), s, sigma), n) > loose) ++above;
  }
  const double q = survival(BlockSizeLaw(n, sigma, s), loose);
  EXPECT_NEAR(above, trials * q, 4.5 * std::sqrt(trials * q * (1 - q)));
}

TEST(ChiSquare, HandComputedPValues) {
  // dof 2: P(chi2 > x) = exp(-x / 2) exactly.
  const std::vector<double> expected{10, 20, 30};
  const stats::ChiSquareResult a = stats::chi_square_test(std::vector<double>{20, 20, 20}, expected);
  EXPECT_NEAR(a.statistic, 100.0 / 10 + 0 + 100.0 / 30, 1e-12);
  EXPECT_EQ(a.dof, 2);
  EXPECT_NEAR(a.p_value, std::exp(-a.statistic / 2), 1e-15);
  EXPECT_NEAR(a.p_value, 0.0012726338013398079, 1e-15);
  const stats::ChiSquareResult b = stats::chi_square_test(expected, expected);
  EXPECT_EQ(b.statistic, 0.0);
  EXPECT_EQ(b.p_value, 1.0);
  // dof 1: P(chi2 > 4) = erfc(sqrt(2)) = 0.04550026...
  const stats::ChiSquareResult c =
      stats::chi_square_test(std::vector<double>{60, 40}, std::vector<double>{50, 50});
  EXPECT_NEAR(c.statistic, 4.0, 1e-14);
  EXPECT_NEAR(c.p_value, std::erfc(std::sqrt(2.0)), 1e-14);
  const stats::ChiSquareResult single = stats::chi_square_test(std::vector<double>{5}, std::vector<double>{5});
  EXPECT_FALSE(single.testable);
  testing::expect_broken_invariant([] {
    stats::chi_square_test(std::vector<double>{1, 2}, std::vector<double>{1});
  });
  testing::expect_broken_invariant([] {
    stats::chi_square_test(std::vector<double>{1, 2}, std::vector<double>{1, 0});
  });
}

TEST(ChiSquare, MergedCellsCoverTheSupportWithEnoughMass) {
  for (const std::int64_t trials : {30, 1000, 100000}) {
    const BlockSizeLaw law(1 << 20, 16.0, 64);
    const std::vector<LawCell> cells = merged_cells(law, trials);
    ASSERT_FALSE(cells.empty());
    EXPECT_EQ(cells.front().lo, 1);
    EXPECT_EQ(cells.back().hi, law.n());
    double total = 0;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      EXPECT_GE(cells[c].expected, 5.0);
      if (c > 0) {
        EXPECT_EQ(cells[c].lo, cells[c - 1].hi + 1);
      }
      double mass = 0;
      for (std::int64_t b = cells[c].lo; b <= std::min<std::int64_t>(cells[c].hi, 5000); ++b)
        mass += pmf(law, b);
      EXPECT_NEAR(cells[c].expected, trials * mass, 1e-9 * trials);
      total += cells[c].expected;
    }
    EXPECT_NEAR(total, static_cast<double>(trials), 1e-9 * trials);
    if (trials >= 1000) {
      EXPECT_GT(cells.size(), 10u);
    }
  }
}

// b_max of T trials, with a pitch sampler that may be deliberately wrong.
using TrialPitchSampler = std::function<double(std::uint64_t trial, std::uint64_t k)>;

std::vector<std::int64_t> sample_b_max(const TrialPitchSampler& pitch, std::int64_t n, std::int64_t s,
                                       int trials) {
  std::vector<std::int64_t> out;
  for (int t = 0; t < trials; ++t) {
    std::vector<PositionalHash> hashes;
    for (std::int64_t k = 0; k < s; ++k) {
      const double p = pitch(static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(k));
      Stream shift_rng(41, static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(k),
                       kLawTestPurpose);
      hashes.push_back({p, p * shift_rng.uniform()});
    }
    out.push_back(b_max(hashes, n));
  }
  return out;
}

TEST(BlockSizeFit, AcceptsTheCorrectSamplerAndRejectsWrongOnes) {
  const int trials = 1000;
  struct Cell {
    double sigma;
    std::int64_t s;
  };
  // 4 cells at level 1e-3: family-wise false alarm <= 4e-3 for a fresh seed.
  for (const Cell c : {Cell{1.0, 1}, Cell{4.0, 8}, Cell{16.0, 64}, Cell{64.0, 512}}) {
    const std::int64_t n = std::int64_t{1} << 30;
    ASSERT_TRUE(law_applies(n, c.sigma, c.s, trials));
    const BlockSizeLaw law(n, c.sigma, c.s);
    const double sigma = c.sigma;
    const TrialPitchSampler correct = [sigma](std::uint64_t t, std::uint64_t k) {
      return draw_hash(23, t, k, sigma).pitch;
    };
    const TrialPitchSampler scaled = [sigma](std::uint64_t t, std::uint64_t k) {
      return 1.2 * draw_hash(23, t, k, sigma).pitch;
    };
    const TrialPitchSampler exponential = [sigma](std::uint64_t t, std::uint64_t k) {
      Stream rng(23, t, k, kLawTestPurpose);
      return -2 * sigma * std::log(rng.uniform_pos());  // same mean 2 sigma, wrong shape
    };
    const BlockSizeFit good = block_size_fit(sample_b_max(correct, n, c.s, trials), law);
    EXPECT_TRUE(good.test.testable);
    EXPECT_GE(good.test.p_value, 1e-3) << "sigma=" << sigma << " s=" << c.s;
    EXPECT_LT(block_size_fit(sample_b_max(scaled, n, c.s, trials), law).test.p_value, 1e-3)
        << "pitch x 1.2 not caught: sigma=" << sigma << " s=" << c.s;
    EXPECT_LT(block_size_fit(sample_b_max(exponential, n, c.s, trials), law).test.p_value, 1e-3)
        << "exponential pitch not caught: sigma=" << sigma << " s=" << c.s;
    // The exact test the verdicts use has the same power on these defects.
    EXPECT_GE(good.cdf_p_value, 1e-3) << "sigma=" << sigma << " s=" << c.s;
    EXPECT_LT(block_size_fit(sample_b_max(scaled, n, c.s, trials), law).cdf_p_value, 1e-3)
        << "pitch x 1.2 not caught by the exact CDF test: sigma=" << sigma << " s=" << c.s;
    EXPECT_LT(block_size_fit(sample_b_max(exponential, n, c.s, trials), law).cdf_p_value, 1e-3)
        << "exponential pitch not caught by the exact CDF test: sigma=" << sigma << " s=" << c.s;
  }
}

// The exact CDF test against its definition, summed by hand: at every cut
// point between cells, #{b_max <= cut} against Binomial(trials, F(cut)^s),
// two-sided, times the number of cuts.
TEST(BlockSizeFit, ExactCdfTestIsBonferroniOverBinomialTailsAtTheCuts) {
  const BlockSizeLaw law(std::int64_t{1} << 20, 4.0, 8);
  std::vector<std::int64_t> sample;
  for (int t = 0; t < 400; ++t) sample.push_back(12 + (t * 7) % 25);  // a flat, wrong law
  const BlockSizeFit fit = block_size_fit(sample, law);
  ASSERT_GE(fit.cdf_cuts, 2);
  double smallest = 2;
  for (int i = 0; i < fit.cdf_cuts; ++i) {
    const std::int64_t cut = fit.cells[static_cast<std::size_t>(i)].hi;
    std::int64_t k = 0;
    for (const auto b : sample) k += b <= cut;
    const boost::math::binomial_distribution<double> bin(400.0, cdf(law, cut));
    const double lower = boost::math::cdf(bin, static_cast<double>(k));
    const double upper =
        k == 0 ? 1.0 : boost::math::cdf(boost::math::complement(bin, static_cast<double>(k - 1)));
    smallest = std::min(smallest, std::min(1.0, 2 * std::min(lower, upper)));
  }
  EXPECT_NEAR(fit.cdf_p_value, std::min(1.0, smallest * fit.cdf_cuts),
              1e-6 * std::max(1e-300, fit.cdf_p_value));
  EXPECT_LT(fit.cdf_p_value, 1e-6);
}

TEST(BlockSizeFit, RejectsValuesOutsideTheSupport) {
  const BlockSizeLaw law(100, 4.0, 8);
  // Its callers (the blocksize checks, verify) pass b_max values they checked.
  testing::expect_broken_invariant([&] { block_size_fit(std::vector<std::int64_t>{3, 0}, law); });
  testing::expect_broken_invariant([&] { block_size_fit(std::vector<std::int64_t>{3, 101}, law); });
  testing::expect_broken_invariant([&] { block_size_fit(std::vector<std::int64_t>{}, law); });
}

// The n-criterion: a trial misses ceil(max pitch) with probability about
// E[max pitch] / (2n). Measured for one hash (s = 1, E = 2 sigma) at an n where
// that rate is large enough to count.
TEST(LawCriterion, DeviationRateMatchesSimulation) {
  struct Case {
    double sigma;
    std::int64_t n;
  };
  for (const Case c : {Case{16.0, 640}, Case{4.0, 200}, Case{64.0, 4096}}) {
    const int trials = 40000;
    int deviating = 0;
    for (int t = 0; t < trials; ++t) {
      const PositionalHash h = draw_hash(31, static_cast<std::uint64_t>(t), 0, c.sigma);
      const auto ceil_pitch = static_cast<std::int64_t>(std::ceil(h.pitch));
      if (largest_block_size(h, c.n) != std::min(c.n, ceil_pitch)) ++deviating;
    }
    const double predicted = law_deviation_rate(c.n, c.sigma, 1);
    const double observed = static_cast<double>(deviating) / trials;
    // The rate is a first-order approximation in delta / n (here <= 0.1): allow
    // 20% plus 4.5 binomial standard errors.
    EXPECT_NEAR(observed, predicted,
                0.2 * predicted + 4.5 * std::sqrt(predicted * (1 - predicted) / trials))
        << "sigma=" << c.sigma << " n=" << c.n;
  }
}

TEST(LawCriterion, FitFailsWhereTheCriterionFails) {
  // sigma = 16, s = 64: E[max pitch] ~ 108. At n = 192 over a quarter of the
  // trials fall one short of ceil(max pitch) (law_applies is false) and the fit
  // rejects (p ~ 1e-26 at this seed). The criterion is conservative: one-unit
  // shifts are hard to see, the same fit gives p ~ 0.02 at n = 256 (rate 0.21).
  const std::int64_t s = 64, n = 192;
  const double sigma = 16;
  const int trials = 4000;
  const TrialPitchSampler correct = [sigma](std::uint64_t t, std::uint64_t k) {
    return draw_hash(29, t, k, sigma).pitch;
  };
  EXPECT_FALSE(law_applies(n, sigma, s, trials));
  EXPECT_GT(law_deviation_rate(n, sigma, s), 0.25);
  const BlockSizeFit fit =
      block_size_fit(sample_b_max(correct, n, s, trials), BlockSizeLaw(n, sigma, s));
  EXPECT_LT(fit.test.p_value, 1e-3);
  EXPECT_LT(fit.cdf_p_value, 1e-3);
  EXPECT_TRUE(law_applies(std::int64_t{1} << 30, sigma, s, 1000));
}

}  // namespace
}  // namespace poslsh
