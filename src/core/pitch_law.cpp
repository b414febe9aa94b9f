#include <poslsh/argument_error.h>
#include <poslsh/pitch_law.h>

#include <cmath>
#include <stdexcept>

#include "union_tail.h"

namespace poslsh {

PitchLaw::PitchLaw(double sigma) : sigma_(sigma) { check::positive_finite("sigma", sigma); }

PitchLaw::PitchLaw(const HashParameters& hash) : sigma_(hash.sigma()) {}

double tail(const PitchLaw& law, double t) {
  if (t <= 0) return 1.0;
  const double x = t / law.sigma();
  return (1.0 + x) * std::exp(-x);
}

double cdf(const PitchLaw& law, double t) {
  if (t <= 0) return 0.0;
  const double x = t / law.sigma();
  // 1 - (1+x)e^-x = -expm1(-x) - x e^-x, without cancellation for small x.
  return -std::expm1(-x) - x * std::exp(-x);
}

double pdf(const PitchLaw& law, double t) {
  if (t < 0) return 0.0;
  const double x = t / law.sigma();
  return x * std::exp(-x) / law.sigma();
}

double union_tail_threshold(double s, double p) {
  if (!(s >= 1) || !std::isfinite(s))
    throw ArgumentError("s", "must be a finite number >= 1", format_value(s));
  check::open_unit("p", p);
  return detail::union_tail_root(s, p);
}

double detail::union_tail_root(double s, double p) {
  if (s <= p) return 0.0;
  // g(x) = ln s + ln(1+x) - x - ln p is decreasing for x > 0 with g(0) > 0.
  // Fixed point x = ln(s/p) + ln(1+x) converges monotonically from below;
  // finish with Newton steps for full precision.
  const double c = std::log(s / p);
  double x = c;
  for (int it = 0; it < 200; ++it) {
    const double nx = c + std::log1p(x);
    if (std::abs(nx - x) <= 1e-15 * nx) {
      x = nx;
      break;
    }
    x = nx;
  }
  for (int it = 0; it < 3; ++it) {
    const double g = c + std::log1p(x) - x;
    const double dg = 1.0 / (1.0 + x) - 1.0;
    x -= g / dg;
  }
  return x;
}

}  // namespace poslsh
