// Largest block b_max of one positional hash, or of a set of hashes, over
// [0, n) (MATH §3), without visiting every block. The result is exactly
// largest_block() of positional_hash.h (every block measured with bin()) for
// every n <= 2^50, pitch and shift.
//
// The floating-point edges. Blocks are defined by PositionalHash::bin(i) =
// floor(fl(fl(i - u) / delta)), not by real arithmetic, and near a bin edge the
// two differ (at n = 2^47 a quarter of all edges are within rounding of an
// integer). Both roundings can be written exactly. Let P(k) = min{i : bin(i) >=
// k}, the first position of bin k (k >= 1), and E the binade of i - u
// (i - u in [2^E, 2^(E+1)), E <= 49 for i < 2^50):
//  - fl(i - u) = i - u_E, with u_E = u rounded (to nearest, ties to even) to a
//    multiple of 2^(E-52): i is a multiple of that spacing and an even one, so
//    the tie rule does not depend on i.
//  - for an integer 1 <= k < 2^53, fl(y) >= k exactly when y >= k - c_k, the
//    midpoint between k and the double below it; c_k = 2^(a-53) for k in
//    (2^a, 2^(a+1)] (ties go to k, whose significand is even).
// So bin(i) >= k  <=>  i >= T_E(k) = u_E + (k - c_k) delta, a rational with a
// power-of-two denominator. Inside one "run" of edges (k in one group
// (2^a, 2^(a+1)], every P(k) at least 2 positions inside one binade E) the
// edges are exactly those of a real grid, P(k) = ceil(T_E(k)), with pitch delta
// and a fixed offset. There, with delta = m + f (m = floor(delta)), block k has
// m + 1 positions when its alignment x_k = ceil(T_E(k)) - T_E(k) is below f (a
// "landing") and m otherwise, and x_{k+1} = (x_k - f) mod 1, so the first
// landing of a run is bin k0 + floor(x_k0 / f): O(1) per run. Every quantity
// is an integer multiple of 2^-Q with Q = 105 - a - exponent(delta), below
// 2^110 in those units, so the arithmetic is exact in 128-bit integers. The
// blocks between runs (a few per group and binade change, and the blocks near
// position 0) and the end blocks clipped by 0 and n are measured with bin().
//
// Early exit. Any block k satisfies size <= ceil(delta + spread), where spread
// bounds |u_E - u_E'| over the binades of its two edges (<= 2^(E2-52), E2 the
// binade of its last edge), and spread = 0 unless the block contains the
// last position B_E - 1 before a binade change (B_E = ceil(u + 2^E)). So no
// block exceeds m + 1 except, possibly, the blocks containing B_E - 1 for the
// binades E with f > 1 - 2^(E-52). The scan walks the runs in order until it
// meets a block of m + 1 positions, then measures those few boundary blocks
// (none unless f > 7/8 at n = 2^50, none unless f > 1 - 2^-12 at 2^40).
// Cost, counted in tests/test_block_size.cpp: a drawn hash (sigma 0.5 .. 256)
// takes about 6 measured bins and 1 run on average at every n from 2^30 to
// 2^50, at most 150. Any hash takes at most a few runs and measured bins per
// group a (at most 52 groups for n <= 2^50), at most about 300 in all for the
// worst pitches (integers: no landing, every run walked).
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

// Throws std::invalid_argument unless 1 <= n <= 2^50, pitch finite and > 0, and
// shift finite with 0 <= shift <= pitch.
LargestBlockScan scan_largest_block(const PositionalHash& h, std::int64_t n);

// Same value as largest_block(h, n) of positional_hash.h.
std::int64_t largest_block_size(const PositionalHash& h, std::int64_t n);

// b_max of a set of hashes: the largest block over all of them (0 if empty).
std::int64_t b_max(std::span<const PositionalHash> hashes, std::int64_t n);

}  // namespace poslsh
