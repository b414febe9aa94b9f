#include "stats/binomial.h"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <stdexcept>

namespace poslsh::stats {

namespace {
using Binomial = boost::math::binomial_distribution<double>;

double upper_tail(const Binomial& b, std::int64_t k) {  // P(X > k)
  return boost::math::cdf(boost::math::complement(b, static_cast<double>(k)));
}
}  // namespace

double binomial_two_sided_p(std::int64_t k, std::int64_t h, double p) {
  const Binomial b(static_cast<double>(h), p);
  const double lower = boost::math::cdf(b, static_cast<double>(k));
  const double upper = k == 0 ? 1.0 : upper_tail(b, k - 1);
  return std::min(1.0, 2 * std::min(lower, upper));
}

double censored_binomial_two_sided_p(std::int64_t fewest, std::int64_t most, std::int64_t total,
                                     double below, double above) {
  if (below > 0.5)
    return censored_binomial_two_sided_p(total - most, total - fewest, total, above, below);
  const Binomial law(static_cast<double>(total), below);
  const double lower = boost::math::cdf(law, static_cast<double>(most));
  const double upper = fewest == 0 ? 1.0 : upper_tail(law, fewest - 1);
  return std::min(1.0, 2 * std::min(lower, upper));
}

std::int64_t binomial_upper_critical(std::int64_t trials, double p, double alpha) {
  if (trials == 0 || p <= 0) return 0;
  if (p >= 1) return trials;
  const Binomial bin(static_cast<double>(trials), p);
  // From the mean, down then up: the tail falls as k grows.
  auto k = static_cast<std::int64_t>(std::floor(static_cast<double>(trials) * p));
  while (k > 0 && upper_tail(bin, k - 1) <= alpha) --k;
  while (k < trials && upper_tail(bin, k) > alpha) ++k;
  return k;
}

double clopper_pearson_lower(std::int64_t k, std::int64_t n, double level) {
  return Binomial::find_lower_bound_on_p(static_cast<double>(n), static_cast<double>(k), level);
}

double clopper_pearson_upper(std::int64_t k, std::int64_t n, double level) {
  return Binomial::find_upper_bound_on_p(static_cast<double>(n), static_cast<double>(k), level);
}

double half_binomial_tail(std::size_t m, std::size_t k) {
  if (k == 0) return 1;
  if (k > m) return 0;
  const Binomial b(static_cast<double>(m), 0.5);
  return boost::math::cdf(boost::math::complement(b, static_cast<double>(k - 1)));
}

std::size_t sign_test_trials_needed(double tail_level) {
  if (!(tail_level > 0)) throw std::logic_error("sign test: tail level must be > 0");
  std::size_t m = 1;
  while (std::ldexp(1.0, -static_cast<int>(m)) > tail_level) ++m;
  return m;
}

}  // namespace poslsh::stats
