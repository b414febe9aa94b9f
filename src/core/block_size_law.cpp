#include <poslsh/argument_error.h>
#include <poslsh/block_size_law.h>
#include <poslsh/pitch_law.h>
#include <poslsh/positional_hash.h>

#include <algorithm>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "union_tail.h"

namespace poslsh {

BlockSizeLaw::BlockSizeLaw(std::int64_t n, double sigma, std::int64_t s)
    : BlockSizeLaw(HashParameters(n, sigma, s)) {}

BlockSizeLaw::BlockSizeLaw(const HashParameters& hash) : hash_(hash) {}

namespace {

// P(max_k delta_k > t) = 1 - F(t)^s without cancellation in either tail.
double max_pitch_survival(const PitchLaw& pitch, double s, double t) {
  const double tail_t = tail(pitch, t);
  if (tail_t >= 1.0) return 1.0;
  return -std::expm1(s * std::log1p(-tail_t));
}

}  // namespace

double survival(const BlockSizeLaw& law, std::int64_t b) {
  if (b < 1) return 1.0;
  if (b >= law.n()) return 0.0;
  return max_pitch_survival(PitchLaw(law.parameters()), static_cast<double>(law.s()),
                            static_cast<double>(b));
}

double cdf(const BlockSizeLaw& law, std::int64_t b) {
  if (b < 1) return 0.0;
  if (b >= law.n()) return 1.0;
  // F(b)^s directly: accurate where it is tiny (the lower tail).
  return std::exp(static_cast<double>(law.s()) *
                  std::log(poslsh::cdf(PitchLaw(law.parameters()), static_cast<double>(b))));
}

double pmf(const BlockSizeLaw& law, std::int64_t b) {
  if (b < 1 || b > law.n()) return 0.0;
  const double c = cdf(law, b);
  // Difference of whichever side is small, so that both tails keep precision.
  return c < 0.5 ? c - cdf(law, b - 1) : survival(law, b - 1) - survival(law, b);
}

std::int64_t quantile(const BlockSizeLaw& law, double p) {
  if (!(p > 0 && p <= 1)) throw ArgumentError("p", "must be a number in (0, 1]", format_value(p));
  if (p == 1) return law.n();
  // max delta <= t with probability p  <=>  F(t) = p^(1/s); use the complement
  // 1 - p^(1/s) = -expm1(ln p / s), which keeps precision when s is large.
  const double q = -std::expm1(std::log(p) / static_cast<double>(law.s()));
  const boost::math::gamma_distribution<double> g(2.0, law.sigma());
  const double t = boost::math::quantile(boost::math::complement(g, q));
  double start = std::ceil(t);
  std::int64_t b = start < 1                               ? 1
                   : start >= static_cast<double>(law.n()) ? law.n()
                                                           : static_cast<std::int64_t>(start);
  // Settle rounding in the quantile on the integer grid with the CDF itself.
  while (b > 1 && cdf(law, b - 1) >= p) --b;
  while (b < law.n() && cdf(law, b) < p) ++b;
  return b;
}

std::int64_t median(const BlockSizeLaw& law) { return quantile(law, 0.5); }

double mean(const BlockSizeLaw& law) {
  // Terms decay like s (1 + b/sigma) e^(-b/sigma): stop once they cannot move
  // the sum in double precision.
  double sum = 0;
  for (std::int64_t b = 0; b < law.n(); ++b) {
    const double term = survival(law, b);
    sum += term;
    if (term < 1e-18 * sum) break;
  }
  return sum;
}

namespace {

// expected_max_pitch with sigma and s checked by the caller.
QuadratureResult max_pitch_mean(double sigma, std::int64_t s) {
  const double sd = static_cast<double>(s);
  // In units of sigma: E = sigma ∫_0^∞ (1 - G(x)^s) dx, G the Gamma(2, 1) CDF.
  const double tail_level = 1e-20;
  const double x_hi = detail::union_tail_root(sd, tail_level);
  const PitchLaw unit(1.0);  // in units of sigma
  const auto integrand = [&unit, sd](double x) { return max_pitch_survival(unit, sd, x); };
  QuadratureResult out;
  double error = 0;
  const double body = boost::math::quadrature::gauss_kronrod<double, 31>::integrate(
      integrand, 0.0, x_hi, 20, 1e-13, &error);
  // Beyond x_hi: 1 - G^s <= s (1 + x) e^-x, whose integral is
  // s (x_hi + 2) e^-x_hi = tail_level (x_hi + 2) / (x_hi + 1); the bound is
  // tight to relative O(tail_level) there, far below the quadrature error.
  const double beyond = tail_level * (x_hi + 2) / (x_hi + 1);
  out.value = sigma * (body + beyond);
  out.error_estimate = sigma * (error + tail_level * tail_level);
  out.converged = std::isfinite(out.value) && out.error_estimate <= 1e-10 * out.value;
  return out;
}

}  // namespace

QuadratureResult expected_max_pitch(double sigma, std::int64_t s) {
  const HashParameters hash(1, sigma, s);  // n plays no part
  return max_pitch_mean(hash.sigma(), hash.s());
}

double law_deviation_rate(const HashParameters& hash) {
  return std::min(1.0, max_pitch_mean(hash.sigma(), hash.s()).value /
                           (2.0 * static_cast<double>(hash.n())));
}

double law_deviation_rate(std::int64_t n, double sigma, std::int64_t s) {
  return law_deviation_rate(HashParameters(n, sigma, s));
}

bool law_applies(const HashParameters& hash, std::int64_t trials) {
  check::at_least("trials", trials, 1);
  return static_cast<double>(trials) * law_deviation_rate(hash) <= 0.5;
}

bool law_applies(std::int64_t n, double sigma, std::int64_t s, std::int64_t trials) {
  return law_applies(HashParameters(n, sigma, s), trials);
}

}  // namespace poslsh
