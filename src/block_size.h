// Largest block b_max of one positional hash, or of a set of hashes, over
// [0, n) (MATH §3), without visiting every block.
//
// Why this is possible. Bin k of a hash (pitch delta = m + f, m = floor(delta),
// shift u) is the real interval [a_k, a_k + delta), a_k = u + k delta. It holds
// ceil(a_k + delta) - ceil(a_k) integers, which is m + 1 when x_k < f and m
// otherwise, with x_k = ceil(a_k) - a_k in [0, 1) the bin's fractional
// alignment. Consecutive alignments form a rotation, x_{k+1} = (x_k - f) mod 1,
// so the next bin with m + 1 positions (a "landing", x_k < f) is found in O(1):
// it is bin k + floor(x_k / f). The partial blocks at both ends of [0, n) are
// measured directly.
//
// Agreement with the floating-point definition. Blocks are defined by
// PositionalHash::bin, floor((i - u) / delta) in double, not by real
// arithmetic. That quotient carries a relative error below 2^-51.9, so bin(i)
// differs from the real-arithmetic bin only when i lies within
// eps = (n + delta) 2^-50 (a safe bound) of a bin edge a_k, and then the edge
// moves by one position. Block ends are always computed with bin() itself
// (candidate from the grid, corrected with bin()), and the closed form is used
// only to decide WHICH blocks need measuring:
//  - pitch < 1/2: every block is one position (quotients of consecutive
//    integers differ by 1/delta > 2, far above rounding); b_max = 1.
//  - generic f in [4 eps, 1 - 4 eps]: no block exceeds m + 1, and every block of
//    m + 1 positions lies within one bin of a landing; the blocks around
//    successive landings are measured until one has m + 1 positions.
//  - pitch within 4 eps of an integer: rounding can decide block sizes, so every
//    bin whose edge lies within 8 eps of an integer (a few short runs of bins,
//    found in closed form) is measured; all other bins have their real size.
// Rare configurations (every landing spoiled by rounding, an exactly integer
// pitch with an edge on an integer) fall back to measuring every interior bin,
// so the result always equals largest_block() of positional_hash.h; the expected
// cost per hash is O(1) for pitches drawn by draw_hash.
#pragma once

#include <cstdint>
#include <span>

#include "positional_hash.h"

namespace poslsh {

// Largest block of one hash over [0, n), plus how many bins were measured
// with bin() (the cost, for tests and diagnostics).
struct LargestBlockScan {
  enum class Path {
    kSingleBlock,    // pitch < 1/2, or all of [0, n) in one bin
    kSmallInterior,  // few bins: all measured
    kLandings,       // generic pitch: blocks around landings measured
    kNearInteger,    // pitch near an integer: runs of near-tie bins measured
    kFullScan,       // fallback: every interior bin measured
  };
  std::int64_t size = 0;
  std::int64_t bins_measured = 0;
  Path path = Path::kSingleBlock;
};

// Throws std::invalid_argument unless 1 <= n <= 2^50, pitch finite and > 0, and
// shift finite with 0 <= shift <= pitch.
LargestBlockScan scan_largest_block(const PositionalHash& h, std::int64_t n);

// Same value as largest_block(h, n) of positional_hash.h.
std::int64_t largest_block_size(const PositionalHash& h, std::int64_t n);

// b_max of a set of hashes: the largest block over all of them (0 if empty).
std::int64_t b_max(std::span<const PositionalHash> hashes, std::int64_t n);

}  // namespace poslsh
