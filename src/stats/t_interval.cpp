#include "stats/t_interval.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace poslsh::stats {

TInterval t_interval(const std::vector<double>& x, double alpha) {
  TInterval out;
  for (double v : x) out.mean += v;
  out.mean /= static_cast<double>(x.size());
  if (x.size() < 2) return out;
  double ss = 0;
  for (double v : x) ss += (v - out.mean) * (v - out.mean);
  const double k = static_cast<double>(x.size());
  const boost::math::students_t dist(k - 1);
  const double half =
      boost::math::quantile(boost::math::complement(dist, alpha / 2)) * std::sqrt(ss / (k - 1) / k);
  out.low = out.mean - half, out.high = out.mean + half;
  return out;
}

}  // namespace poslsh::stats
