// The statistics module (src/stats/) against definitions computed here by
// direct summation, and against published values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "stats/binomial.h"
#include "stats/chernoff.h"
#include "stats/t_interval.h"

namespace poslsh::stats {
namespace {

// P(Binomial(n, p) > k) by summing the pmf (lgamma), independent of Boost.
double upper_tail_by_sum(std::int64_t n, double p, std::int64_t k) {
  double s = 0;
  for (std::int64_t j = k + 1; j <= n; ++j)
    s += std::exp(std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0) +
                  j * std::log(p) + (n - j) * std::log1p(-p));
  return s;
}

TEST(Statistics, UpperCriticalIsTheSmallestCountTheLevelAllows) {
  for (std::int64_t n : {1, 7, 40, 300})
    for (double p : {0.01, 0.2, 0.5, 0.93})
      for (double alpha : {0.05, 1e-3, 1e-6}) {
        const std::int64_t k = binomial_upper_critical(n, p, alpha);
        EXPECT_LE(upper_tail_by_sum(n, p, k), alpha * (1 + 1e-9)) << n << " " << p << " " << alpha;
        if (k > 0) {
          EXPECT_GT(upper_tail_by_sum(n, p, k - 1), alpha * (1 - 1e-9)) << n << " " << p;
        }
      }
  EXPECT_EQ(binomial_upper_critical(0, 0.3, 0.05), 0);
  EXPECT_EQ(binomial_upper_critical(50, 0.0, 0.05), 0);
  EXPECT_EQ(binomial_upper_critical(50, 1.0, 0.05), 50);
}

TEST(Statistics, ClopperPearsonMatchesItsClosedFormAtTheEdges) {
  // k = 0: upper = 1 - level^(1/n); k = n: lower = level^(1/n).
  EXPECT_NEAR(clopper_pearson_upper(0, 10, 0.025), 1 - std::pow(0.025, 0.1), 1e-12);
  EXPECT_NEAR(clopper_pearson_lower(10, 10, 0.025), std::pow(0.025, 0.1), 1e-12);
  EXPECT_EQ(clopper_pearson_lower(0, 10, 0.025), 0.0);
  // Interior: P(X >= k | lower) = level.
  const double lo = clopper_pearson_lower(7, 20, 0.05);
  EXPECT_NEAR(upper_tail_by_sum(20, lo, 6), 0.05, 1e-9);
}

TEST(Statistics, CensoredTestWithEqualBoundsIsTheTwoSidedTest) {
  for (std::int64_t k : {0, 3, 17, 40})
    EXPECT_DOUBLE_EQ(censored_binomial_two_sided_p(k, k, 40, 0.3, 0.7),
                     binomial_two_sided_p(k, 40, 0.3));
  // Wider bounds can only be more conservative.
  EXPECT_GE(censored_binomial_two_sided_p(5, 20, 40, 0.3, 0.7), binomial_two_sided_p(5, 40, 0.3));
}

TEST(Statistics, StudentTIntervalMatchesThePublishedQuantile) {
  // x = 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.302652729749464.
  const TInterval t = t_interval({1, 2, 3});
  ASSERT_TRUE(t.low && t.high);
  EXPECT_DOUBLE_EQ(t.mean, 2.0);
  EXPECT_NEAR(*t.high - 2, 4.302652729749464 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(2 - *t.low, 4.302652729749464 / std::sqrt(3.0), 1e-12);
  EXPECT_FALSE(t_interval({5}).low.has_value());
}

TEST(Statistics, ChernoffMeanTailBoundsTheExactTail) {
  // Bernoulli(0.3), 200 draws: P(mean >= 0.4) exactly, and the bound above it.
  const FiniteLaw law{{0, 1}, {0.7, 0.3}};
  const double exact = upper_tail_by_sum(200, 0.3, 79);  // P(X >= 80)
  const double bound = chernoff_mean_tail(law, 0.4, 200, 0.0, 10.0);
  EXPECT_GE(bound, exact);
  EXPECT_LT(bound, 20 * exact);  // and not vacuous: the Chernoff gap is polynomial
  // The same law through the two-sided Cramer bound agrees within a factor 2.
  EXPECT_NEAR(chernoff_two_sided_p(law, 80, 200) / (2 * bound), 1.0, 1e-6);
}

}  // namespace
}  // namespace poslsh::stats
