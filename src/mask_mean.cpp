#include "mask_mean.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace poslsh {

MaskMean::MaskMean(std::int64_t n, std::span<const PositionalHash> hashes, Form form)
    : n_(n), form_(form) {
  if (n < 1) throw std::invalid_argument("n must be an integer >= 1, got " + std::to_string(n));
  if (hashes.empty()) throw std::invalid_argument("MaskMean needs at least one hash");
  offsets_.reserve(hashes.size() + 1);
  offsets_.push_back(0);
  for (const auto& h : hashes) {
    const auto s = block_starts(h, n);
    for (std::size_t b = 0; b + 1 < s.size(); ++b)
      largest_block_ = std::max(largest_block_, s[b + 1] - s[b]);
    starts_.insert(starts_.end(), s.begin(), s.end());
    offsets_.push_back(static_cast<std::int64_t>(starts_.size()));
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
  // Blocks are visited tile by tile over positions (all hashes for one tile,
  // then the next) so that P and D stay in cache: hash by hash, every hash
  // would stream both n-long arrays from memory again, which made the product
  // memory-bound at about the cost of an O(n s) one.
  constexpr std::int64_t kTile = 1 << 14;
  cursor_.assign(offsets_.begin(), offsets_.end() - 1);
  for (std::int64_t tile_end = std::min(n_, kTile);; tile_end = std::min(n_, tile_end + kTile)) {
    for (std::int64_t k = 0; k < s; ++k) {
      const std::int64_t last = offsets_[k + 1] - 1;  // index of the closing n
      std::int64_t c = cursor_[k];
      for (; c < last && starts_[c] < tile_end; ++c) {
        const std::int64_t lo = starts_[c], hi = starts_[c + 1];
        const double v = form_ == Form::kSymmetric ? P[hi] - P[lo] : P[lo];
        D[lo] += v;
        D[hi] -= v;
      }
      cursor_[k] = c;
    }
    if (tile_end == n_) break;
  }
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
