#include "error_operator.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace poslsh {

void mask_mean_transpose_op(const MaskMean& mask, const double* x, double* y) {
  if (mask.form() == Form::kSymmetric) {
    mask.perform_op(x, y);
    return;
  }
  const std::int64_t n = mask.rows();
  const std::int64_t s = mask.num_hashes();
  std::vector<double> prefix, diff(n + 1, 0.0);
  prefix_sums(x, n, prefix);
  // Every i in block [lo, hi) receives P[hi] - P[i]; the -P[i] part is common
  // to all hashes, so only the piecewise-constant P[hi] goes through the
  // difference array (mirror image of MaskMean's causal product).
  for (std::int64_t k = 0; k < s; ++k) {
    const auto st = mask.blocks(k);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) {
      const std::int64_t lo = st[b], hi = st[b + 1];
      const double v = prefix[hi];
      diff[lo] += v;
      diff[hi] -= v;
    }
  }
  const double inv_s = 1.0 / static_cast<double>(s);
  double acc = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    acc += diff[i];
    y[i] = acc * inv_s - prefix[i];
  }
}

void alibi_kernel_transpose_op(const AlibiKernel& kernel, const double* x, double* y) {
  if (kernel.form() == Form::kSymmetric) {
    kernel.perform_op(x, y);
    return;
  }
  const std::int64_t n = kernel.rows();
  const double r = kernel.ratio();
  double g = 0.0;
  for (std::int64_t i = n - 1; i >= 0; --i) {
    g = x[i] + r * g;
    y[i] = g;
  }
}

ErrorOperator::ErrorOperator(std::int64_t n, std::span<const PositionalHash> hashes, double sigma,
                             Form form)
    : mask_(n, hashes, form), kernel_(n, sigma, form) {
  // Tile-major copy of the block starts for the scatter (see scatter_blocks),
  // as 32-bit positions: half the bytes streamed per product.
  if (n > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
    throw std::invalid_argument("n must be < 2^32 for ErrorOperator, got " + std::to_string(n));
  constexpr std::int64_t kTileSize = 8192;
  const std::int64_t s = mask_.num_hashes();
  std::vector<std::int64_t> cursor(static_cast<std::size_t>(s), 0);
  tiled_.starts.reserve(static_cast<std::size_t>(mask_.num_blocks() + 2 * s * (n / kTileSize + 1)));
  tiled_.offsets.push_back(0);
  for (std::int64_t tile_end = kTileSize;; tile_end += kTileSize) {
    const std::int64_t end = std::min(tile_end, n);
    for (std::int64_t k = 0; k < s; ++k) {
      const auto st = mask_.blocks(k);
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

// What each block [lo, hi) adds on [lo, hi) through the difference array.
enum class BlockValue { kSum, kPrefixAtStart, kPrefixAtEnd };

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
template <BlockValue kValue>
void scatter_blocks(const TiledBlocks& tiled, std::int64_t s, const double* P, double* D,
                    std::vector<ScatterState>& state) {
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

}  // namespace

// The products are fused: one prefix-sum pass, the tiled block scatter, then
// one forward pass that finishes M~ x and subtracts the forward ALiBi
// recursion, and (symmetric, or transposed causal) one backward pass.
void ErrorOperator::perform_op(const Scalar* x, Scalar* y) const {
  const std::int64_t n = rows();
  prefix_sums(x, n, prefix_);
  diff_.assign(n + 1, 0.0);
  double* P = prefix_.data();
  double* D = diff_.data();
  const double inv_s = 1.0 / static_cast<double>(num_hashes());
  const double r = kernel_.ratio();
  double acc = 0.0, f = 0.0;
  if (form() == Form::kSymmetric) {
    scatter_blocks<BlockValue::kSum>(tiled_, num_hashes(), P, D, state_);
    // y = M~ x - (f + g - x), f forward and g backward recursions.
    for (std::int64_t i = 0; i < n; ++i) {
      acc += D[i];
      f = x[i] + r * f;
      y[i] = acc * inv_s - f + x[i];
    }
    double g = 0.0;
    for (std::int64_t i = n - 1; i >= 0; --i) {
      g = x[i] + r * g;
      y[i] -= g;
    }
  } else {
    // Causal: (M~_c x)_i = P[i+1] - (1/s) Σ_k P[start_k(i)].
    scatter_blocks<BlockValue::kPrefixAtStart>(tiled_, num_hashes(), P, D, state_);
    for (std::int64_t i = 0; i < n; ++i) {
      acc += D[i];
      f = x[i] + r * f;
      y[i] = (P[i + 1] - acc * inv_s) - f;
    }
  }
}

void ErrorOperator::perform_transpose_op(const Scalar* x, Scalar* y) const {
  if (form() == Form::kSymmetric) {
    perform_op(x, y);
    return;
  }
  const std::int64_t n = rows();
  prefix_sums(x, n, prefix_);
  diff_.assign(n + 1, 0.0);
  double* P = prefix_.data();
  double* D = diff_.data();
  // (M~_c^T x)_i = (1/s) Σ_k P[end_k(i)] - P[i]; (L*_c^T x)_i = g_i (backward).
  scatter_blocks<BlockValue::kPrefixAtEnd>(tiled_, num_hashes(), P, D, state_);
  const double inv_s = 1.0 / static_cast<double>(num_hashes());
  double acc = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    acc += D[i];
    y[i] = acc * inv_s - P[i];
  }
  const double r = kernel_.ratio();
  double g = 0.0;
  for (std::int64_t i = n - 1; i >= 0; --i) {
    g = x[i] + r * g;
    y[i] -= g;
  }
}

Eigen::MatrixXd ErrorOperator::dense() const { return mask_.dense() - kernel_.dense(); }

void NormalOperator::perform_op(const Scalar* x, Scalar* y) const {
  scratch_.resize(static_cast<std::size_t>(rows()));
  error_.perform_op(x, scratch_.data());
  error_.perform_transpose_op(scratch_.data(), y);
}

}  // namespace poslsh
