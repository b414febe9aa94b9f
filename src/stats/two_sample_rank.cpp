#include "stats/two_sample_rank.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace poslsh::stats {

namespace two_sample_rank_detail {

// P(U = u) for i tested and j control values, i = 0 .. m, rolled over i: the
// largest of i + j exchangeable values is a tested one with probability
// i / (i + j), and then exceeds all j control values.
std::vector<double> rank_law(std::size_t m, std::size_t k) {
  const std::size_t top = m * k;
  std::vector<std::vector<double>> prev(k + 1, std::vector<double>(top + 1, 0.0)), cur = prev;
  for (std::size_t j = 0; j <= k; ++j) prev[j][0] = 1;  // i = 0: U = 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::fill(cur[0].begin(), cur[0].end(), 0.0);
    cur[0][0] = 1;  // j = 0: U = 0
    for (std::size_t j = 1; j <= k; ++j) {
      const double a = static_cast<double>(i) / static_cast<double>(i + j), b = 1 - a;
      for (std::size_t u = 0; u <= i * j; ++u)
        cur[j][u] = (u >= j ? a * prev[j][u - j] : 0.0) + b * cur[j - 1][u];
      for (std::size_t u = i * j + 1; u <= top; ++u) cur[j][u] = 0;
    }
    std::swap(prev, cur);
  }
  return prev[k];
}

double hoeffding_tail(std::size_t m, std::size_t k, std::size_t u) {
  const double t = static_cast<double>(u) / static_cast<double>(m * k) - 0.5;
  if (t <= 0) return 1;
  return std::exp(-2 * static_cast<double>(std::min(m, k)) * t * t);
}

}  // namespace two_sample_rank_detail

double rank_upper_tail(std::size_t m, std::size_t k, std::size_t u) {
  if (m == 0 || k == 0) throw std::logic_error("rank test: both samples must be non-empty");
  if (u == 0) return 1;
  if (u > m * k) return 0;
  if (m * k > kExactRankPairs) return two_sample_rank_detail::hoeffding_tail(m, k, u);
  const std::vector<double> law = two_sample_rank_detail::rank_law(m, k);
  double tail = 0;
  for (std::size_t v = u; v <= m * k; ++v) tail += law[v];
  return std::min(1.0, tail);
}

double smallest_rank_p(std::size_t m, std::size_t k) {
  return std::min(1.0, 2 * rank_upper_tail(m, k, m * k));
}

std::size_t rank_test_trials_needed(double level) {
  if (!(level > 0)) throw std::logic_error("rank test: level must be > 0");
  std::size_t m = 1;
  while (smallest_rank_p(m, m) > level) ++m;
  return m;
}

RankTest two_sample_rank_test(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) throw std::logic_error("rank test: both samples must be non-empty");
  RankTest r;
  r.m = x.size();
  r.k = y.size();
  for (double a : x) {
    if (std::isnan(a)) throw std::logic_error("rank test: a value is NaN");
    for (double b : y) {
      if (std::isnan(b)) throw std::logic_error("rank test: a value is NaN");
      r.above += a > b;
      r.below += a < b;
    }
  }
  r.exact = r.m * r.k <= kExactRankPairs;
  r.p_above = rank_upper_tail(r.m, r.k, r.above);
  r.p_below = rank_upper_tail(r.m, r.k, r.below);  // U< has the law of U (symmetry)
  r.p = std::min(1.0, 2 * std::min(r.p_above, r.p_below));
  r.smallest_p = smallest_rank_p(r.m, r.k);
  return r;
}

}  // namespace poslsh::stats
