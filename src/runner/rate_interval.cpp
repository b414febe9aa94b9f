#include "runner/rate_interval.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>

namespace poslsh {

RateInterval rate_interval(std::span<const double> slopes, double level) {
  if (slopes.size() < 2) throw std::invalid_argument("rate_interval: needs at least two slopes");
  if (!(level > 0 && level < 1))
    throw std::invalid_argument("rate_interval: level must be in (0, 1)");
  const double m = static_cast<double>(slopes.size());
  double mean = 0;
  for (double b : slopes) mean += b / m;
  double ss = 0;
  for (double b : slopes) ss += (b - mean) * (b - mean);
  const double sd = std::sqrt(ss / (m - 1));
  const boost::math::students_t t(m - 1);
  const double half =
      boost::math::quantile(boost::math::complement(t, level / 2)) * sd / std::sqrt(m);
  RateInterval r;
  r.mean = mean;
  r.low = mean - half;
  r.high = mean + half;
  r.fails = r.high < kRateSlopeLow || r.low > kRateSlopeHigh;
  r.testable = half <= kRateMaxHalfWidth;
  return r;
}

}  // namespace poslsh
