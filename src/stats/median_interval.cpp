#include "stats/median_interval.h"

#include <algorithm>
#include <vector>

#include "stats/binomial.h"

namespace poslsh::stats {

MedianInterval median_interval(std::span<const double> values, double level) {
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size();
  // Largest k with P(b_(k) > median) + P(b_(m+1-k) < median) <=
  // 2 P(Binomial(m, 1/2) <= k - 1) <= level; k = 1 ([min, max]) when none.
  std::size_t k = 1;
  while (k + 1 <= (m + 1) / 2 && 2 * half_binomial_tail(m, m - k) <= level) ++k;
  MedianInterval out;
  out.median = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
  out.low = v[k - 1];
  out.high = v[m - k];
  out.coverage = 1 - 2 * half_binomial_tail(m, m - k + 1);
  return out;
}

}  // namespace poslsh::stats
