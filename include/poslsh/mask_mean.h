// The estimator M~ = (1/s) Σ_k M(h_k) of MATH §2 as a Spectra-style operator.
// Its product costs O(n + total number of blocks) (MATH §6): one prefix sum of
// x shared by all hashes, then O(1) work per block into a difference array.
#pragma once

#include <poslsh/alibi_kernel.h>
#include <poslsh/positional_hash.h>

#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace poslsh {

namespace detail {
struct TiledBlocks;    // the tile-major block starts of the products
struct ProductAccess;  // how the core's products reach the members below
}  // namespace detail (both private to the core: src/core/tiled_product.h)

// The buffers of one product of a MaskMean or an ErrorOperator (and the
// intermediate vector of a NormalOperator's). The operators' own products use
// an internal one; products given their own scratch may run concurrently on
// one operator (one scratch per thread). It holds no state between products,
// so a copy is as good as a fresh one. Opaque: its layout is the products'.
class ProductScratch {
 private:
  friend struct detail::ProductAccess;
  std::vector<double> ring_, tile_, state_;  // prefix-sum ring, tile of D, per-hash state
  std::vector<double> normal_;               // E x inside E^T E x
};

// ArgumentError (n) unless 1 <= n < 2^32, the lengths a MaskMean takes:
// callers that build masks later check their n up front with it.
void check_mask_length(std::int64_t n);

class MaskMean {
 public:
  using Scalar = double;

  // Throws ArgumentError unless 1 <= n < 2^32 and each hash is usable
  // (validate_hash), std::logic_error when hashes is empty.
  MaskMean(std::int64_t n, std::span<const PositionalHash> hashes, Form form = Form::kSymmetric);
  // The mean of s given partitions of [0, n) into contiguous blocks, each as
  // its block starts followed by n (0 = p[0] < p[1] < ... < p.back() = n):
  // masks from another implementation's hashes, or a deliberately wrong one
  // (tests). Throws InputError naming the partition that is not such a
  // list, ArgumentError unless 1 <= n < 2^32, std::logic_error when
  // partitions is empty.
  MaskMean(std::int64_t n, std::span<const std::vector<std::int64_t>> partitions,
           Form form = Form::kSymmetric);

  Eigen::Index rows() const { return n_; }
  Eigen::Index cols() const { return n_; }
  std::int64_t num_hashes() const { return static_cast<std::int64_t>(offsets_.size()) - 1; }
  std::int64_t num_blocks() const {
    return static_cast<std::int64_t>(starts_.size()) - num_hashes();
  }
  Form form() const { return form_; }

  // Block starts of hash k over [0, n), ending with n (see block_starts()).
  std::span<const std::int64_t> blocks(std::int64_t k) const {
    return {starts_.data() + offsets_[k], starts_.data() + offsets_[k + 1]};
  }
  // Largest block over all hashes: b_max.
  std::int64_t largest_block() const { return largest_block_; }

  // y = M~ x (or (M~ ⊙ T) x). Uses internal scratch: not for concurrent calls
  // on one object (Spectra calls it serially; give each thread its own copy).
  void perform_op(const Scalar* x_in, Scalar* y_out) const;
  Eigen::MatrixXd dense() const;

 private:
  friend struct detail::ProductAccess;  // the tiled products read tiled_
  std::int64_t n_;
  Form form_;
  std::vector<std::int64_t> starts_;   // all hashes' block starts, concatenated
  std::vector<std::int64_t> offsets_;  // hash k's starts: [offsets_[k], offsets_[k+1])
  std::int64_t largest_block_ = 0;
  // The block starts again, tile-major, for the products; immutable, so
  // copies of the operator share it.
  std::shared_ptr<const detail::TiledBlocks> tiled_;
  mutable ProductScratch scratch_;  // perform_op's
};

}  // namespace poslsh
