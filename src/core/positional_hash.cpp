#include <poslsh/argument_error.h>
#include <poslsh/hash_parameters.h>
#include <poslsh/positional_hash.h>
#include <poslsh/rng.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "gamma2.h"

namespace poslsh {

std::int64_t PositionalHash::bin(std::int64_t i) const {
  return static_cast<std::int64_t>(std::floor((static_cast<double>(i) - shift) / pitch));
}

double detail::gamma2_from_uniforms(double u1, double u2) {
  // -ln(U1) - ln(U2) rather than -ln(U1 U2): the product can underflow. Only
  // U1 = U2 = 1 gives 0 (as -0.0); the clamp maps it to the smallest value the
  // other pairs give, so no redraw is needed and the stream stays in step.
  return std::max(-(std::log(u1) + std::log(u2)), kSmallestGamma2);
}

PositionalHash draw_hash(std::uint64_t seed, std::uint64_t trial, std::uint64_t k, double sigma) {
  Stream rng(seed, trial, k, StreamPurpose::kHash);
  const double u1 = rng.uniform_pos();
  const double u2 = rng.uniform_pos();
  const double u3 = rng.uniform();
  const double pitch = sigma * detail::gamma2_from_uniforms(u1, u2);
  return PositionalHash{pitch, pitch * u3};
}

std::vector<PositionalHash> draw_hashes(std::uint64_t seed, std::uint64_t trial,
                                        const HashParameters& hash) {
  std::vector<PositionalHash> hashes;
  hashes.reserve(static_cast<std::size_t>(hash.s()));
  for (std::int64_t k = 0; k < hash.s(); ++k)
    hashes.push_back(draw_hash(seed, trial, static_cast<std::uint64_t>(k), hash.sigma()));
  return hashes;
}

std::vector<PositionalHash> draw_hashes(std::uint64_t seed, std::uint64_t trial, std::int64_t s,
                                        double sigma) {
  return draw_hashes(seed, trial, HashParameters(1, sigma, s));
}

namespace {

// First position j > i whose bin differs from bin(i) (or n). The grid gives a
// candidate in O(1); the candidate is then corrected with bin() itself so that
// rounding in the two formulas can never disagree.
// A pitch so small that (i - shift) / pitch leaves the int64 range (below
// about 2^-13 at i = 2^50) has no representable bin; all such bins would cast
// to one value and the walks below would run to n. In exact arithmetic every
// position is its own block there (pitch < 1), which is what we return.
bool bin_out_of_range(const PositionalHash& h, std::int64_t i) {
  return !(std::abs((static_cast<double>(i) - h.shift) / h.pitch) < 0x1p62);
}

std::int64_t next_block_start(const PositionalHash& h, std::int64_t i, std::int64_t n) {
  if (bin_out_of_range(h, i)) return i + 1;
  const std::int64_t b = h.bin(i);
  const double edge = h.shift + static_cast<double>(b + 1) * h.pitch;
  if (!(edge < static_cast<double>(n))) {
    // Edge beyond the range (or huge): the block may still end before n by rounding.
    if (h.bin(n - 1) == b) return n;
  }
  std::int64_t j =
      std::clamp<double>(std::ceil(edge), static_cast<double>(i + 1), static_cast<double>(n));
  while (j > i + 1 && h.bin(j - 1) != b) --j;
  while (j < n && h.bin(j) == b) ++j;
  return j;
}

}  // namespace

std::int64_t block_end(const PositionalHash& h, std::int64_t i, std::int64_t n) {
  return next_block_start(h, i, n);
}

std::int64_t block_begin(const PositionalHash& h, std::int64_t i) {
  if (bin_out_of_range(h, i)) return i;
  const std::int64_t b = h.bin(i);
  const double edge = h.shift + static_cast<double>(b) * h.pitch;  // real start of bin b
  std::int64_t j = std::clamp<double>(std::ceil(edge), 0.0, static_cast<double>(i));
  while (j < i && h.bin(j) != b) ++j;
  while (j > 0 && h.bin(j - 1) == b) --j;
  return j;
}

std::vector<std::int64_t> block_starts(const PositionalHash& h, std::int64_t n) {
  validate_hash(h);
  check::at_least("n", n, 1);
  std::vector<std::int64_t> starts;
  starts.reserve(static_cast<std::size_t>(std::min<double>(
      static_cast<double>(n) + 1, static_cast<double>(n) / std::max(h.pitch, 1.0) + 3)));
  std::int64_t i = 0;
  while (i < n) {
    starts.push_back(i);
    i = next_block_start(h, i, n);
  }
  starts.push_back(n);
  return starts;
}

std::int64_t largest_block(const PositionalHash& h, std::int64_t n) {
  std::int64_t best = 0, i = 0;
  while (i < n) {
    const std::int64_t j = next_block_start(h, i, n);
    best = std::max(best, j - i);
    i = j;
  }
  return best;
}

std::int64_t largest_block(std::span<const PositionalHash> hashes, std::int64_t n) {
  std::int64_t best = 0;
  for (const auto& h : hashes) best = std::max(best, largest_block(h, n));
  return best;
}

void validate_hash(const PositionalHash& h) {
  check::positive_finite("pitch", h.pitch);
  if (!std::isfinite(h.shift) || h.shift < 0 || h.shift > h.pitch)
    throw ArgumentError("shift", "must lie in [0, pitch]",
                        "shift " + format_value(h.shift) + ", pitch " + format_value(h.pitch));
}

void validate_hash_parameters(std::int64_t n, double sigma, std::int64_t s) {
  const HashParameters checked(n, sigma, s);
}

}  // namespace poslsh
