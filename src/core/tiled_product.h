// The O(n + #blocks) products of M~ (and of E = M~ - L*, which adds two
// recursions), done tile by tile along the positions so that every buffer a
// tile touches stays in cache: the prefix sums P of x live in a small ring
// buffer that runs just ahead of the tile, and the tile's part of the
// difference array D is a tile-sized buffer, cleared, filled by the block
// scatter and consumed by the caller's pass over the tile before the next one.
// Per vector, a product then streams x in and y out once; the whole-array
// version (P and D of n entries each, written, then read back by the scatter
// and the final pass) moved several times more memory and was bound by it at
// n = 2^20 (docs/design-notes.md; the numbers: docs/benchmarks.md). The
// arithmetic, and so every bit of the result, is the whole-array version's:
// the same prefix sums, each D entry updated by the same blocks in the same
// order (hash by hash, within its tile).
//
// Vectors may be `kLanes` interleaved lanes (entry i of lane l at
// [i * kLanes + l]); each lane is computed exactly as alone.
#pragma once

#include <poslsh/mask_mean.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tiled_blocks.h"

namespace poslsh::detail {

// What each block [lo, hi) adds on [lo, hi) through the difference array D:
// the block sum P[hi] - P[lo] (symmetric product), P[lo] (causal product) or
// P[hi] (transposed causal product), P the prefix sums of x.
enum class BlockValue { kSum, kPrefixAtStart, kPrefixAtEnd };

// The buffers of one tiled product, inside a ProductScratch: the prefix-sum
// ring, the tile's part of the difference array and the per-hash scatter
// state.
struct TileBuffers {
  std::vector<double>& ring;
  std::vector<double>& tile;
  std::vector<double>& state;
};

// The core's way into the private members of the installed MaskMean and
// ProductScratch (their friend): the tiled layout of the block starts and
// the buffers, neither of which a caller of the products needs to see.
struct ProductAccess {
  static const TiledBlocks& tiled(const MaskMean& mask) { return *mask.tiled_; }
  static TileBuffers tiles(ProductScratch& scratch) {
    return {scratch.ring_, scratch.tile_, scratch.state_};
  }
  static std::vector<double>& normal(ProductScratch& scratch) { return scratch.normal_; }
};

// kLanes doubles as one GCC vector value (kLanes 2 or 4: one SSE or AVX
// register; 8, two AVX registers, was slower than the scalar loop:
// docs/benchmarks.md).
template <int kLanes>
struct LaneVector {
  typedef double type __attribute__((vector_size(kLanes * sizeof(double))));
};

// D[lo] += v, D[hi] -= v for the blocks of every hash that start in `tile`
// (v given by kValue from the prefix sums). Consecutive blocks of a hash share
// a boundary (hi of block b is lo of block b+1), so the two updates there are
// made as one, D[lo] += v_b - v_{b-1}, with v_{b-1} and P at the boundary
// carried per hash in `state` (s x [kLanes previous values, kLanes prefix
// sums], zero before tile 0): one D update and one P load per block. The
// blocks are read from the tile-major copy of the block starts, one
// sequential stream (the per-hash arrays would be s concurrent streams, more
// than the hardware prefetchers follow). Prefix sum p is read at
// P[(p & p_mask) * kLanes + l] (a ring buffer) and D entry i at
// D[(i - d_origin) * kLanes + l] (a tile buffer). P and D never overlap:
// __restrict lets the compiler load P ahead of the stores to D.
// Two loops with the same operations: one on GCC vectors for 2 and 4 lanes,
// one lane by lane otherwise: a single loop on a lane-pack type with array
// storage for the other counts was slower for every lane count
// (docs/benchmarks.md).
template <BlockValue kValue, int kLanes>
inline void scatter_tile(const TiledBlocks& tiled, std::int64_t s, std::int64_t tile,
                         const double* __restrict P, std::int64_t p_mask, double* __restrict D,
                         std::int64_t d_origin, double* __restrict state) {
  const std::uint32_t* seg = tiled.starts.data();
  const std::int64_t* off = tiled.offsets.data() + tile * s;
  for (std::int64_t k = 0; k < s; ++k) {
    // Segment (tile, k): hash k's block starts inside the tile, then the end
    // of the last of those blocks (empty when no block of k starts here).
    const std::int64_t first = off[k], last = off[k + 1] - 1;
    if (last <= first) continue;
    double* h = state + k * 2 * kLanes;
    if constexpr (kLanes == 2 || kLanes == 4) {
      // The lanes as one SIMD value (GCC vector extension): the compiler
      // left this loop scalar, one lane after the other. The same IEEE
      // operations per lane, so the same bits.
      using V = typename LaneVector<kLanes>::type;
      V prev, p_lo, p_hi, d;
      std::memcpy(&prev, h, sizeof(V));
      std::memcpy(&p_lo, h + kLanes, sizeof(V));
      for (std::int64_t j = first; j < last; ++j) {
        double* dj = D + (static_cast<std::int64_t>(seg[j]) - d_origin) * kLanes;
        std::memcpy(&p_hi, P + (static_cast<std::int64_t>(seg[j + 1]) & p_mask) * kLanes,
                    sizeof(V));
        std::memcpy(&d, dj, sizeof(V));
        V v;
        if constexpr (kValue == BlockValue::kSum)
          v = p_hi - p_lo;
        else if constexpr (kValue == BlockValue::kPrefixAtStart)
          v = p_lo;
        else
          v = p_hi;
        d += v - prev;
        std::memcpy(dj, &d, sizeof(V));
        prev = v;
        p_lo = p_hi;
      }
      std::memcpy(h, &prev, sizeof(V));
      std::memcpy(h + kLanes, &p_lo, sizeof(V));
      continue;
    }
    double prev[kLanes], p_lo[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      prev[l] = h[l];
      p_lo[l] = h[kLanes + l];
    }
    for (std::int64_t j = first; j < last; ++j) {
      const double* __restrict p_hi = P + (static_cast<std::int64_t>(seg[j + 1]) & p_mask) * kLanes;
      double* __restrict d = D + (static_cast<std::int64_t>(seg[j]) - d_origin) * kLanes;
      for (int l = 0; l < kLanes; ++l) {
        double v;
        if constexpr (kValue == BlockValue::kSum)
          v = p_hi[l] - p_lo[l];
        else if constexpr (kValue == BlockValue::kPrefixAtStart)
          v = p_lo[l];
        else
          v = p_hi[l];
        d[l] += v - prev[l];
        prev[l] = v;
        p_lo[l] = p_hi[l];
      }
    }
    for (int l = 0; l < kLanes; ++l) {
      h[l] = prev[l];
      h[kLanes + l] = p_lo[l];
    }
  }
}

// For every tile [lo, hi) in order: extends the prefix sums of x (P[0] = 0,
// P[i+1] = P[i] + x[i]) to every entry the tile reads, scatters the tile's
// blocks into a cleared D buffer, then calls
//   finish(lo, hi, P, p_mask, D)
// where prefix sum p of lane l is P[(p & p_mask) * kLanes + l], valid for
// lo <= p <= hi, and D[(i - lo) * kLanes + l] is the difference-array entry
// of position i, for lo <= i < hi.
template <BlockValue kValue, int kLanes, class Finish>
void for_each_scattered_tile(const MaskMean& mask, const double* __restrict x, TileBuffers buf,
                             Finish&& finish) {
  const TiledBlocks& tb = ProductAccess::tiled(mask);
  const std::int64_t n = mask.rows(), s = mask.num_hashes();
  const std::int64_t p_mask = tb.ring_size - 1;
  buf.ring.resize(static_cast<std::size_t>(tb.ring_size * kLanes));
  buf.tile.resize(static_cast<std::size_t>(TiledBlocks::kTileSize * kLanes));
  buf.state.assign(static_cast<std::size_t>(s * 2 * kLanes), 0.0);
  double* __restrict P = buf.ring.data();
  double* __restrict D = buf.tile.data();
  double run[kLanes];
  for (int l = 0; l < kLanes; ++l) P[l] = run[l] = 0.0;
  std::int64_t ready = 0;  // P[0..ready] computed
  const auto num_tiles = static_cast<std::int64_t>(tb.reach.size());
  for (std::int64_t t = 0; t < num_tiles; ++t) {
    const std::int64_t lo = t * TiledBlocks::kTileSize;
    const std::int64_t hi = std::min(lo + TiledBlocks::kTileSize, n);
    // Writing P[p] overwrites P[p - ring_size], which lies before lo: the
    // ring holds every entry the tile reads (TiledBlocks::ring_size).
    for (; ready < tb.reach[t]; ++ready) {
      double* __restrict dst = P + ((ready + 1) & p_mask) * kLanes;
      for (int l = 0; l < kLanes; ++l) {
        run[l] += x[ready * kLanes + l];
        dst[l] = run[l];
      }
    }
    std::fill(D, D + (hi - lo) * kLanes, 0.0);
    scatter_tile<kValue, kLanes>(tb, s, t, P, p_mask, D, lo, buf.state.data());
    finish(lo, hi, static_cast<const double*>(P), p_mask, static_cast<const double*>(D));
  }
}

// The forward pass every product finishes with, over the tiles in order: per
// position i and lane l, acc = the running sum of D (the blocks' part) and
// f = x_i + r f (the forward ALiBi recursion; unused and dropped by the
// compiler where out does not read it), then
//   out(i, e, l, acc, f, P, p_mask)
// with e = i * kLanes + l and the tile's prefix sums as for_each_scattered_tile.
template <BlockValue kValue, int kLanes, class Out>
void tiled_forward_pass(const MaskMean& mask, const double* __restrict x, double r,
                        TileBuffers buf, Out&& out) {
  double acc[kLanes] = {}, f[kLanes] = {};
  for_each_scattered_tile<kValue, kLanes>(
      mask, x, buf,
      [&](std::int64_t lo, std::int64_t hi, const double* P, std::int64_t p_mask, const double* D) {
        for (std::int64_t i = lo; i < hi; ++i)
          for (int l = 0; l < kLanes; ++l) {
            const std::int64_t e = i * kLanes + l;
            acc[l] += D[(i - lo) * kLanes + l];
            f[l] = x[e] + r * f[l];
            out(i, e, l, acc[l], f[l], P, p_mask);
          }
      });
}

}  // namespace poslsh::detail
