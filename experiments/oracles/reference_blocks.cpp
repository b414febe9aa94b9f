#include "experiments/oracles/reference_blocks.h"

#include <algorithm>
#include <cmath>

namespace poslsh {

namespace {

// The position where bin `b` starts, estimated in long double and clamped
// to [lo, hi]; the callers correct it against reference_bin.
std::int64_t edge_estimate(const PositionalHash& h, long double b, std::int64_t lo,
                           std::int64_t hi) {
  const long double x =
      std::ceil(b * static_cast<long double>(h.pitch) + static_cast<long double>(h.shift));
  if (!(x > static_cast<long double>(lo))) return lo;
  if (!(x < static_cast<long double>(hi))) return hi;
  return static_cast<std::int64_t>(x);
}

}  // namespace

double reference_bin(const PositionalHash& h, std::int64_t i) {
  return std::floor((static_cast<double>(i) - h.shift) / h.pitch);
}

std::int64_t reference_block_begin(const PositionalHash& h, std::int64_t i) {
  const double b = reference_bin(h, i);
  std::int64_t j = edge_estimate(h, b, 0, i);
  while (j < i && reference_bin(h, j) != b) ++j;
  while (j > 0 && reference_bin(h, j - 1) == b) --j;
  return j;
}

std::int64_t reference_block_end(const PositionalHash& h, std::int64_t i, std::int64_t n) {
  const double b = reference_bin(h, i);
  std::int64_t j = edge_estimate(h, static_cast<long double>(b) + 1, i + 1, n);
  while (j > i + 1 && reference_bin(h, j - 1) != b) --j;
  while (j < n && reference_bin(h, j) == b) ++j;
  return j;
}

std::vector<std::int64_t> reference_block_starts(const PositionalHash& h, std::int64_t n) {
  std::vector<std::int64_t> starts;
  for (std::int64_t i = 0; i < n; i = reference_block_end(h, i, n)) starts.push_back(i);
  starts.push_back(n);
  return starts;
}

}  // namespace poslsh
