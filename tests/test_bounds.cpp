// Bounds of MATH §3-§5 against independent numbers: arbitrary-precision values
// computed separately (mpmath, from the formulas of MATH §4-§5), Boost.Math
// Gamma quantiles and quadrature for the pitch-law terms, and sampled errors.
#include <gtest/gtest.h>
#include <poslsh/bounds.h>
#include <poslsh/max_error.h>
#include <poslsh/spectral_error.h>

#include <boost/math/distributions/gamma.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <stdexcept>

namespace poslsh {
namespace {

// Values computed with mpmath (30 digits) from the formulas in MATH §4-§5 and the
// causal variant documented in bounds.h; x from findroot on s(1+x)e^-x = p/2.
TEST(Bounds, SpectralMatchesIndependentValues) {
  EXPECT_NEAR(spectral_bound(1024, 8, 64, 0.01), 26.042796553039622, 1e-11);
  EXPECT_NEAR(spectral_bound(1024, 8, 64, 0.01, Form::kCausal), 28.19942300510896, 1e-11);
  EXPECT_NEAR(spectral_bound(65536, 16, 1, 0.01), 1589.7183048390077, 1e-9);
  EXPECT_NEAR(spectral_bound(4096, 0.5, 1024, 0.001), 0.47944232012476511, 1e-13);
  EXPECT_NEAR(spectral_bound(100, 64, 4, 0.2, Form::kCausal), 932.40043693196935, 1e-9);
  const SpectralBoundTerms t = spectral_bound_terms(1024, 8, 64, 0.01);
  EXPECT_NEAR(t.x, 12.02399378171999, 1e-12);
  EXPECT_NEAR(t.threshold, 96.191950253759916, 1e-11);
  EXPECT_EQ(t.range, 97.0);
  EXPECT_NEAR(t.bias, 0.0082661094657252555, 1e-15);
}

TEST(Bounds, SpectralTermsAgreeWithBoostGamma) {
  for (double sigma : {0.5, 4.0, 16.0, 64.0}) {
    for (std::int64_t s : {1, 16, 1024}) {
      const double p = 0.01;
      const SpectralBoundTerms t = spectral_bound_terms(4096, sigma, s, p);
      boost::math::gamma_distribution<double> g(2.0, sigma);
      // T is where a union bound over s pitches reaches p/2: s P(delta > T) = p/2.
      const double T = boost::math::quantile(boost::math::complement(g, p / 2 / s));
      EXPECT_NEAR(t.threshold, T, 1e-9 * T);
      // b_T = E[(delta + 1) 1(delta > T)] by quadrature of the density.
      auto integrand = [&](double d) { return (d + 1) * boost::math::pdf(g, d); };
      const double bias = boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
          integrand, T, std::numeric_limits<double>::infinity(), 15, 1e-13);
      EXPECT_NEAR(t.bias, bias, 1e-9 * bias + 1e-300);
      // v = E[(delta + 1)^2].
      EXPECT_NEAR(t.v,
                  boost::math::mean(g) * boost::math::mean(g) + boost::math::variance(g) +
                      2 * boost::math::mean(g) + 1,
                  1e-12 * t.v);
    }
  }
}

TEST(Bounds, MaxBoundMatchesIndependentValues) {
  EXPECT_NEAR(max_bound(1024, 64, 0.01), 0.37983484031651806, 1e-15);
  EXPECT_NEAR(max_bound(2, 1, 0.5), 0.83255461115769776, 1e-15);
  EXPECT_NEAR(max_bound(65536, 16, 0.01), 0.91490888728401636, 1e-15);
  EXPECT_EQ(max_bound(1, 8, 0.01), 0.0);
  // Hoeffding rate: four times the samples halves the bound.
  EXPECT_NEAR(max_bound(4096, 256, 0.01), max_bound(4096, 64, 0.01) / 2, 1e-15);
}

TEST(Bounds, BMaxMatchesBoostQuantile) {
  // Independent values (mpmath): x_p(64, 0.01) = 11.2713179..., x_p(1, 0.01) = 6.63835...
  EXPECT_EQ(b_max_bound(1000000000, 16, 64, 0.01), 181);
  EXPECT_EQ(b_max_bound(1000000000, 8, 1, 0.01), 54);
  EXPECT_EQ(b_max_bound(1000000000, 4, 1024, 0.001), 67);
  EXPECT_EQ(b_max_bound(50, 16, 64, 0.01), 50);  // capped at n
  for (double sigma : {1.0, 3.5, 16.0, 100.0}) {
    for (std::int64_t s : {1, 8, 64, 4096}) {
      boost::math::gamma_distribution<double> g(2.0, sigma);
      const double q = boost::math::quantile(boost::math::complement(g, 0.01 / s));
      if (std::abs(q - std::round(q)) < 1e-7) continue;  // floor undecidable
      EXPECT_EQ(b_max_bound(1 << 30, sigma, s, 0.01), static_cast<std::int64_t>(std::floor(q)) + 1);
    }
  }
}

TEST(Bounds, HoldOnSampledErrors) {
  // Each bound fails with probability <= p = 0.01 per draw; over 24 draws a
  // binomial(24, 0.01) exceeds 2 with probability < 2e-3, so allow 2.
  int violations = 0;
  for (std::uint64_t trial = 0; trial < 12; ++trial) {
    for (std::int64_t s : {4, 32}) {
      const auto hashes = draw_hashes(17, trial, s, 8.0);
      const ErrorOperator e(512, hashes, 8.0);
      const SpectralErrorResult r = spectral_error(e);
      const EntrywiseError m = entrywise_error(e);
      violations += r.value > spectral_bound(512, 8.0, s, 0.01);
      violations += m.max_error > max_bound(512, s, 0.01);
      violations += m.largest_block > b_max_bound(512, 8.0, s, 0.01);
    }
  }
  EXPECT_LE(violations, 2);
}

TEST(Bounds, RejectBadParameters) {
  EXPECT_THROW(spectral_bound(0, 8, 4, 0.01), std::invalid_argument);
  EXPECT_THROW(spectral_bound(10, -1, 4, 0.01), std::invalid_argument);
  EXPECT_THROW(spectral_bound(10, 8, 0, 0.01), std::invalid_argument);
  EXPECT_THROW(spectral_bound(10, 8, 4, 1.0), std::invalid_argument);
  EXPECT_THROW(max_bound(10, 4, 0.0), std::invalid_argument);
  EXPECT_THROW(b_max_bound(10, 8, 4, -0.5), std::invalid_argument);
}

}  // namespace
}  // namespace poslsh
