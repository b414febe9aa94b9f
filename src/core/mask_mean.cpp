#include <poslsh/mask_mean.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "lanes.h"

namespace poslsh {

namespace {

std::vector<std::vector<std::int64_t>> partitions_of(std::int64_t n,
                                                     std::span<const PositionalHash> hashes) {
  if (n < 1) throw std::invalid_argument("n must be an integer >= 1, got " + std::to_string(n));
  if (hashes.empty()) throw std::invalid_argument("MaskMean needs at least one hash");
  std::vector<std::vector<std::int64_t>> partitions;
  partitions.reserve(hashes.size());
  for (const auto& h : hashes) partitions.push_back(block_starts(h, n));
  return partitions;
}

}  // namespace

MaskMean::MaskMean(std::int64_t n, std::span<const PositionalHash> hashes, Form form)
    : MaskMean(n, partitions_of(n, hashes), form) {}

MaskMean::MaskMean(std::int64_t n, std::span<const std::vector<std::int64_t>> partitions, Form form)
    : n_(n), form_(form) {
  if (n < 1) throw std::invalid_argument("n must be an integer >= 1, got " + std::to_string(n));
  if (partitions.empty()) throw std::invalid_argument("MaskMean needs at least one hash");
  offsets_.reserve(partitions.size() + 1);
  offsets_.push_back(0);
  for (std::size_t k = 0; k < partitions.size(); ++k) {
    const auto& s = partitions[k];
    bool valid = s.size() >= 2 && s.front() == 0 && s.back() == n;
    for (std::size_t b = 0; valid && b + 1 < s.size(); ++b) {
      valid = s[b] < s[b + 1];
      largest_block_ = std::max(largest_block_, s[b + 1] - s[b]);
    }
    if (!valid)
      throw std::invalid_argument("MaskMean: partition " + std::to_string(k) +
                                  " is not a list of block starts 0 = p[0] < p[1] < ... < "
                                  "p.back() = n = " +
                                  std::to_string(n));
    starts_.insert(starts_.end(), s.begin(), s.end());
    offsets_.push_back(static_cast<std::int64_t>(starts_.size()));
  }
  // Tile-major copy of the block starts for the scatter (see scatter_blocks),
  // as 32-bit positions: half the bytes streamed per product.
  if (n > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
    throw std::invalid_argument("n must be < 2^32 for MaskMean, got " + std::to_string(n));
  // 1024 positions: one vector's tile of P and of D (8 KiB each) stays in L1.
  // Measured at n = 2^20, s = 64 (one lane): the scatter took 4.7-4.9 ms with
  // tiles of 1024, 7.1-7.3 ms with 2048 and 8.4-8.9 ms with 8192; two lanes
  // took about 11 ms with any of them. The tile size does not change results
  // (each D entry is updated within one tile, hash by hash).
  constexpr std::int64_t kTileSize = 1024;
  const std::int64_t s = num_hashes();
  std::vector<std::int64_t> cursor(static_cast<std::size_t>(s), 0);
  tiled_.starts.reserve(static_cast<std::size_t>(num_blocks() + 2 * s * (n / kTileSize + 1)));
  tiled_.offsets.push_back(0);
  for (std::int64_t tile_end = kTileSize;; tile_end += kTileSize) {
    const std::int64_t end = std::min(tile_end, n);
    for (std::int64_t k = 0; k < s; ++k) {
      const auto st = blocks(k);
      const auto nb = static_cast<std::int64_t>(st.size()) - 1;
      std::int64_t c = cursor[static_cast<std::size_t>(k)];
      if (c < nb && st[c] < end) {
        for (; c < nb && st[c] < end; ++c)
          tiled_.starts.push_back(static_cast<std::uint32_t>(st[c]));
        tiled_.starts.push_back(
            static_cast<std::uint32_t>(st[c]));  // end of the segment's last block
      }
      cursor[static_cast<std::size_t>(k)] = c;
      tiled_.offsets.push_back(static_cast<std::int64_t>(tiled_.starts.size()));
    }
    if (end == n) break;
  }
}

namespace {

// D[lo] += v, D[hi] -= v for every block of every hash, v from the prefix sums
// P (D[n] is never read and is left out). Consecutive blocks of a hash share a
// boundary (hi of block b is lo of block b+1), so the two updates there are
// made as one, D[lo] += v_b - v_{b-1}, with v_{b-1} and P at the boundary
// carried per hash: one D update and one P load per block instead of two.
// Blocks are visited tile by tile along the positions (all hashes per tile),
// so that P and D stay in cache, and read from the tile-major copy of the block
// starts, one sequential stream (the per-hash arrays would be s concurrent
// streams, more than the hardware prefetchers follow). Each block is visited
// once, in an order fixed by (n, blocks): the result is deterministic.
// P and D never overlap: __restrict lets the compiler load P ahead of the
// stores to D (the loads were serialised behind them; measured 15-20% of a
// whole convergence row at n = 65536, same bits).
template <BlockValue kValue>
void scatter_blocks(const TiledBlocks& tiled, std::int64_t s, const double* __restrict P,
                    double* __restrict D, std::vector<ScatterState>& state) {
  state.assign(static_cast<std::size_t>(s), ScatterState{});
  const std::uint32_t* seg = tiled.starts.data();
  const std::int64_t* off = tiled.offsets.data();
  const auto num_segments = static_cast<std::int64_t>(tiled.offsets.size()) - 1;
  for (std::int64_t t = 0; t < num_segments; ++t) {
    // Segment t holds hash (t mod s)'s block starts in one tile, then the end
    // of its last block (empty when no block of that hash starts in the tile).
    const std::int64_t first = off[t], last = off[t + 1] - 1;
    if (last <= first) continue;
    ScatterState& h = state[static_cast<std::size_t>(t % s)];
    double prev = h.prev_value, p_lo = h.p_lo;
    for (std::int64_t j = first; j < last; ++j) {
      const double p_hi = P[seg[j + 1]];
      double v;
      if constexpr (kValue == BlockValue::kSum)
        v = p_hi - p_lo;
      else if constexpr (kValue == BlockValue::kPrefixAtStart)
        v = p_lo;
      else
        v = p_hi;
      D[seg[j]] += v - prev;
      prev = v;
      p_lo = p_hi;
    }
    h.prev_value = prev;
    h.p_lo = p_lo;
  }
}

// scatter_blocks on kLanes interleaved vectors. state holds, per hash, the
// previous value of each lane then the prefix sum at the next start of each
// (P and D never overlap, as there).
template <BlockValue kValue, int kLanes>
void scatter_blocks_lanes(const TiledBlocks& tiled, std::int64_t s, const double* __restrict P,
                          double* __restrict D, std::vector<double>& state) {
  state.assign(static_cast<std::size_t>(s * 2 * kLanes), 0.0);
  const std::uint32_t* seg = tiled.starts.data();
  const std::int64_t* off = tiled.offsets.data();
  const auto num_segments = static_cast<std::int64_t>(tiled.offsets.size()) - 1;
  for (std::int64_t t = 0; t < num_segments; ++t) {
    const std::int64_t first = off[t], last = off[t + 1] - 1;
    if (last <= first) continue;
    double* h = state.data() + (t % s) * 2 * kLanes;
    double prev[kLanes], p_lo[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      prev[l] = h[l];
      p_lo[l] = h[kLanes + l];
    }
    for (std::int64_t j = first; j < last; ++j) {
      const double* __restrict p_hi = P + static_cast<std::int64_t>(seg[j + 1]) * kLanes;
      double* __restrict d = D + static_cast<std::int64_t>(seg[j]) * kLanes;
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

}  // namespace

void MaskMean::scatter_lanes(BlockValue value, const double* P, double* D, int lanes) const {
  scatter_lanes(value, P, D, lanes, lane_state_);
}

void MaskMean::scatter_lanes(BlockValue value, const double* P, double* D, int lanes,
                             std::vector<double>& state) const {
  const std::int64_t s = num_hashes();
  dispatch_lanes(lanes, "scatter_lanes", [&](auto L) {
    switch (value) {
      case BlockValue::kSum:
        return scatter_blocks_lanes<BlockValue::kSum, L>(tiled_, s, P, D, state);
      case BlockValue::kPrefixAtStart:
        return scatter_blocks_lanes<BlockValue::kPrefixAtStart, L>(tiled_, s, P, D, state);
      case BlockValue::kPrefixAtEnd:
        return scatter_blocks_lanes<BlockValue::kPrefixAtEnd, L>(tiled_, s, P, D, state);
    }
  });
}

void MaskMean::scatter(BlockValue value, const double* P, double* D) const {
  const std::int64_t s = num_hashes();
  switch (value) {
    case BlockValue::kSum:
      scatter_blocks<BlockValue::kSum>(tiled_, s, P, D, state_);
      break;
    case BlockValue::kPrefixAtStart:
      scatter_blocks<BlockValue::kPrefixAtStart>(tiled_, s, P, D, state_);
      break;
    case BlockValue::kPrefixAtEnd:
      scatter_blocks<BlockValue::kPrefixAtEnd>(tiled_, s, P, D, state_);
      break;
  }
}

void prefix_sums(const double* x, std::int64_t n, std::vector<double>& P) {
  P.resize(n + 1);
  P[0] = 0.0;
  for (std::int64_t i = 0; i < n; ++i) P[i + 1] = P[i] + x[i];
}

void MaskMean::perform_op(const Scalar* x, Scalar* y) const {
  prefix_sums(x, n_, prefix_);
  diff_.assign(n_ + 1, 0.0);
  const double* P = prefix_.data();
  double* D = diff_.data();

  const std::int64_t s = num_hashes();
  // Symmetric: every i in block [a, b) receives P[b] - P[a].
  // Causal: i receives P[i+1] - P[a]; the P[i+1] part is common to all hashes,
  // so only the piecewise-constant P[a] goes through the difference array.
  scatter(form_ == Form::kSymmetric ? BlockValue::kSum : BlockValue::kPrefixAtStart, P, D);
  const double inv_s = 1.0 / static_cast<double>(s);
  double acc = 0.0;
  if (form_ == Form::kSymmetric) {
    for (std::int64_t i = 0; i < n_; ++i) {
      acc += D[i];
      y[i] = acc * inv_s;
    }
  } else {
    for (std::int64_t i = 0; i < n_; ++i) {
      acc += D[i];
      y[i] = P[i + 1] - acc * inv_s;
    }
  }
}

Eigen::MatrixXd MaskMean::dense() const {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n_, n_);
  const std::int64_t s = num_hashes();
  for (std::int64_t k = 0; k < s; ++k) {
    const auto st = blocks(k);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) {
      const Eigen::Index lo = st[b], len = st[b + 1] - st[b];
      m.block(lo, lo, len, len).array() += 1.0;
    }
  }
  m /= static_cast<double>(s);
  if (form_ == Form::kCausal) m.triangularView<Eigen::StrictlyUpper>().setZero();
  return m;
}

}  // namespace poslsh
