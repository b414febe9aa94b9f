#include <poslsh/argument_error.h>
#include <poslsh/mask_mean.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "prefix_sums.h"
#include "tiled_blocks.h"
#include "tiled_product.h"

namespace poslsh {

namespace {

std::vector<std::vector<std::int64_t>> partitions_of(std::int64_t n,
                                                     std::span<const PositionalHash> hashes) {
  check_mask_length(n);
  if (hashes.empty()) throw std::logic_error("MaskMean needs at least one hash");
  std::vector<std::vector<std::int64_t>> partitions;
  partitions.reserve(hashes.size());
  for (const auto& h : hashes) partitions.push_back(block_starts(h, n));
  return partitions;
}

// Tile-major copy of the block starts for the tiled products, as 32-bit
// positions (n < 2^32): half the bytes streamed per product.
std::shared_ptr<const detail::TiledBlocks> tile_major_blocks(const MaskMean& mask) {
  constexpr std::int64_t kTileSize = detail::TiledBlocks::kTileSize;
  const std::int64_t n = mask.rows();
  const std::int64_t s = mask.num_hashes();
  auto tiled = std::make_shared<detail::TiledBlocks>();
  std::vector<std::int64_t> cursor(static_cast<std::size_t>(s), 0);
  tiled->starts.reserve(static_cast<std::size_t>(mask.num_blocks() + 2 * s * (n / kTileSize + 1)));
  tiled->offsets.push_back(0);
  std::int64_t window = 1;
  for (std::int64_t tile_end = kTileSize;; tile_end += kTileSize) {
    const std::int64_t end = std::min(tile_end, n);
    // The causal products read P[i + 1] for i in the tile: P up to `end`.
    std::int64_t reach = end;
    for (std::int64_t k = 0; k < s; ++k) {
      const auto st = mask.blocks(k);
      const auto nb = static_cast<std::int64_t>(st.size()) - 1;
      std::int64_t c = cursor[static_cast<std::size_t>(k)];
      if (c < nb && st[c] < end) {
        for (; c < nb && st[c] < end; ++c)
          tiled->starts.push_back(static_cast<std::uint32_t>(st[c]));
        tiled->starts.push_back(
            static_cast<std::uint32_t>(st[c]));  // end of the segment's last block
        reach = std::max(reach, st[c]);
      }
      cursor[static_cast<std::size_t>(k)] = c;
      tiled->offsets.push_back(static_cast<std::int64_t>(tiled->starts.size()));
    }
    tiled->reach.push_back(reach);
    window = std::max(window, reach - (tile_end - kTileSize) + 1);
    if (end == n) break;
  }
  tiled->ring_size = static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(window)));
  return tiled;
}

}  // namespace

void check_mask_length(std::int64_t n) {
  check::at_least("n", n, 1);
  if (n > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
    throw ArgumentError("n", "must be an integer < 2^32 (positions are 32-bit)", std::to_string(n));
}

MaskMean::MaskMean(std::int64_t n, std::span<const PositionalHash> hashes, Form form)
    : MaskMean(n, partitions_of(n, hashes), form) {}

MaskMean::MaskMean(std::int64_t n, std::span<const std::vector<std::int64_t>> partitions, Form form)
    : n_(n), form_(form) {
  check_mask_length(n);
  if (partitions.empty()) throw std::logic_error("MaskMean needs at least one hash");
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
      throw InputError("MaskMean: partition " + std::to_string(k) +
                       " is not a list of block starts 0 = p[0] < p[1] < ... < "
                       "p.back() = n = " +
                       std::to_string(n));
    starts_.insert(starts_.end(), s.begin(), s.end());
    offsets_.push_back(static_cast<std::int64_t>(starts_.size()));
  }
  tiled_ = tile_major_blocks(*this);
}

void detail::prefix_sums(const double* x, std::int64_t n, std::vector<double>& P) {
  P.resize(n + 1);
  P[0] = 0.0;
  for (std::int64_t i = 0; i < n; ++i) P[i + 1] = P[i] + x[i];
}

void MaskMean::perform_op(const Scalar* x, Scalar* y) const {
  const double inv_s = 1.0 / static_cast<double>(num_hashes());
  if (form_ == Form::kSymmetric) {
    // Every i in block [a, b) receives P[b] - P[a].
    detail::tiled_forward_pass<detail::BlockValue::kSum, 1>(
        *this, x, 0.0, detail::ProductAccess::tiles(scratch_),
        [&](std::int64_t i, std::int64_t, int, double acc, double, const double*, std::int64_t) {
          y[i] = acc * inv_s;
        });
  } else {
    // Causal: i receives P[i+1] - P[a]; the P[i+1] part is common to all
    // hashes, so only the piecewise-constant P[a] goes through D.
    detail::tiled_forward_pass<detail::BlockValue::kPrefixAtStart, 1>(
        *this, x, 0.0, detail::ProductAccess::tiles(scratch_),
        [&](std::int64_t i, std::int64_t, int, double acc, double, const double* P,
            std::int64_t p_mask) { y[i] = P[(i + 1) & p_mask] - acc * inv_s; });
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
