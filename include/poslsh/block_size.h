// Largest block b_max of one positional hash, or of a set of hashes, over
// [0, n) (MATH §3), without visiting every block. The result is exactly
// largest_block() of positional_hash.h (every block measured with bin()) for
// every n <= 2^50, pitch and shift.
// How, exactly, in floating point, and at what cost: docs/design-notes.md,
// "Design notes: the largest-block scan".
#pragma once

#include <poslsh/positional_hash.h>

#include <cstdint>
#include <span>

namespace poslsh {

// Largest block of one hash over [0, n), plus the work done (for tests and
// diagnostics): how many bins were measured with bin() and how many runs were
// decided in closed form.
struct LargestBlockScan {
  enum class Path {
    kSingleBlock,    // pitch < 1/2, or all of [0, n) in one bin
    kSmallInterior,  // few bins: all measured
    kLandings,       // closed form over runs of exact edges (see above)
  };
  std::int64_t size = 0;
  std::int64_t bins_measured = 0;
  std::int64_t runs = 0;
  Path path = Path::kSingleBlock;
};

// ArgumentError (n) unless 1 <= n <= 2^50, the lengths the scan takes.
void check_block_size_length(std::int64_t n);

// Throws ArgumentError unless 1 <= n <= 2^50, pitch finite and > 0, and
// shift finite with 0 <= shift <= pitch.
LargestBlockScan scan_largest_block(const PositionalHash& h, std::int64_t n);

// Same value as largest_block(h, n) of positional_hash.h.
std::int64_t largest_block_size(const PositionalHash& h, std::int64_t n);

// b_max of a set of hashes: the largest block over all of them (0 if empty).
std::int64_t b_max(std::span<const PositionalHash> hashes, std::int64_t n);

}  // namespace poslsh
