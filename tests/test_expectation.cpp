// E[M(h)] = L* (MATH §2), tested entry by entry with exact binomial tails.
#include <gtest/gtest.h>
#include <poslsh/alibi_kernel.h>
#include <poslsh/positional_hash.h>
#include <poslsh/rng.h>

#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <functional>

namespace poslsh {
namespace {

using HashSampler = std::function<PositionalHash(std::uint64_t k)>;

// Number of hashes under which i and j share a block, for all pairs.
Eigen::MatrixXd collision_counts(std::int64_t n, std::int64_t s, const HashSampler& sample) {
  Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(n, n);
  for (std::int64_t k = 0; k < s; ++k) {
    const auto st = block_starts(sample(k), n);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) {
      const auto len = st[b + 1] - st[b];
      counts.block(st[b], st[b], len, len).array() += 1.0;
    }
  }
  return counts;
}

// Smallest two-sided exact binomial p-value over the off-diagonal pairs.
double min_pair_p_value(std::int64_t n, std::int64_t s, double sigma, const HashSampler& sample) {
  const Eigen::MatrixXd counts = collision_counts(n, s, sample);
  double min_p = 1.0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j) {
      const double p = std::exp(-static_cast<double>(j - i) / sigma);
      const boost::math::binomial_distribution<double> law(static_cast<double>(s), p);
      const double c = counts(i, j);
      // P(X <= c) and P(X >= c), both exact; far pairs have tiny p, where a
      // normal approximation would be useless.
      const double lower = boost::math::cdf(law, c);
      const double upper = c > 0 ? boost::math::cdf(boost::math::complement(law, c - 1)) : 1.0;
      min_p = std::min(min_p, std::min(1.0, 2.0 * std::min(lower, upper)));
    }
  return min_p;
}

constexpr std::int64_t kN = 64, kS = 20000;
constexpr double kSigma = 4.0;
// Family-wise false-alarm rate 1e-4, Bonferroni over the n(n-1)/2 pairs.
constexpr double kFamilyWiseAlpha = 1e-4;
constexpr double kPairAlpha = kFamilyWiseAlpha / (kN * (kN - 1) / 2);

TEST(Expectation, MaskMeanIsUnbiasedForAlibi) {
  const double p = min_pair_p_value(
      kN, kS, kSigma, [](std::uint64_t k) { return draw_hash(20260101, 0, k, kSigma); });
  EXPECT_GE(p, kPairAlpha) << "some pair's collision count is implausible under Binomial(s, L*)";
}

TEST(Expectation, NegativeControlExponentialPitchIsCaught) {
  // A plausible mistake: pitch ~ Exponential with the right mean 2 sigma
  // instead of Gamma(2, sigma). The same test must reject it.
  const double p = min_pair_p_value(kN, kS, kSigma, [](std::uint64_t k) {
    Stream rng(20260101, 0, k, StreamPurpose::kHash);
    const double pitch = -2.0 * kSigma * std::log(rng.uniform_pos());
    return PositionalHash{pitch, pitch * rng.uniform()};
  });
  EXPECT_LT(p, kPairAlpha);
}

TEST(Expectation, NegativeControlFixedShiftIsCaught) {
  // Forgetting the random shift breaks stationarity: also rejected.
  const double p = min_pair_p_value(kN, kS, kSigma, [](std::uint64_t k) {
    auto h = draw_hash(20260101, 0, k, kSigma);
    h.shift = 0.0;
    return h;
  });
  EXPECT_LT(p, kPairAlpha);
}

}  // namespace
}  // namespace poslsh
