// The error of the positional-LSH estimator as matrix-free operators (MATH §4, §6):
//   symmetric  E   = M~ - L*
//   causal     E_c = T ⊙ (M~ - L*),  T lower triangular (j <= i)
// E x and E^T x cost O(n + number of blocks), like the products they are made
// of; ErrorOperator fuses them (one cache-tiled pass that computes the prefix
// sums, scatters the blocks and runs the forward recursion, then one backward
// recursion) instead of calling MaskMean and AlibiKernel.
// The causal spectral norm is the square root of the largest eigenvalue of the
// normal operator x -> E_c^T (E_c x), which is symmetric positive semidefinite.
#pragma once

#include <poslsh/alibi_kernel.h>
#include <poslsh/hash_parameters.h>
#include <poslsh/mask_mean.h>
#include <poslsh/positional_hash.h>

#include <Eigen/Dense>
#include <cstdint>
#include <span>
#include <vector>

namespace poslsh {

class ErrorOperator {
 public:
  using Scalar = double;

  // The error of the mean of `hashes`, drawn with `hash` (s = hashes.size(),
  // else std::logic_error). Trusts `hash`; checks what the mask itself
  // needs: n < 2^32 (check_mask_length) and each hash (validate_hash).
  ErrorOperator(const HashParameters& hash, std::span<const PositionalHash> hashes,
                Form form = Form::kSymmetric);
  // The same from raw values, with s = hashes.size(): ArgumentError as
  // HashParameters (s names an empty `hashes`), then as above.
  ErrorOperator(std::int64_t n, std::span<const PositionalHash> hashes, double sigma,
                Form form = Form::kSymmetric);

  Eigen::Index rows() const { return mask_.rows(); }
  Eigen::Index cols() const { return mask_.cols(); }
  Form form() const { return mask_.form(); }
  double sigma() const { return kernel_.sigma(); }
  std::int64_t num_hashes() const { return mask_.num_hashes(); }
  const MaskMean& mask() const { return mask_; }
  const AlibiKernel& kernel() const { return kernel_; }

  // y = E x. Uses internal scratch: one object per thread.
  void perform_op(const Scalar* x_in, Scalar* y_out) const;
  // y = E^T x (equal to E x in the symmetric form).
  void perform_transpose_op(const Scalar* x_in, Scalar* y_out) const;
  // The same products on `lanes` vectors at once (1 <= lanes <= 8), stored
  // interleaved: entry i of vector j at x_in[i * lanes + j]. One pass over the
  // block starts serves every lane and the recursions run lane-parallel, so
  // four vectors cost far less than four products; each lane equals the
  // single-vector product bit for bit.
  void perform_op_lanes(const Scalar* x_in, Scalar* y_out, int lanes) const;
  void perform_transpose_op_lanes(const Scalar* x_in, Scalar* y_out, int lanes) const;
  // The same with the caller's scratch (ProductScratch, mask_mean.h):
  // thread-safe, one scratch per thread.
  void perform_op_lanes(const Scalar* x_in, Scalar* y_out, int lanes,
                        ProductScratch& scratch) const;
  void perform_transpose_op_lanes(const Scalar* x_in, Scalar* y_out, int lanes,
                                  ProductScratch& scratch) const;
  // Dense E, for small-n oracles only.
  Eigen::MatrixXd dense() const;

 private:
  MaskMean mask_;
  AlibiKernel kernel_;
  mutable ProductScratch scratch_;  // the products' own
};

// x -> E^T (E x): symmetric positive semidefinite, whatever the form of E. Its
// largest eigenvalue is ||E||_2^2. Holds a reference: `error` must outlive it.
class NormalOperator {
 public:
  using Scalar = double;

  explicit NormalOperator(const ErrorOperator& error) : error_(error) {}

  Eigen::Index rows() const { return error_.rows(); }
  Eigen::Index cols() const { return error_.cols(); }
  const ErrorOperator& error() const { return error_; }
  // y = E^T E x: two products of E. Uses internal scratch.
  void perform_op(const Scalar* x_in, Scalar* y_out) const;
  // The same on interleaved lanes (see ErrorOperator::perform_op_lanes).
  void perform_op_lanes(const Scalar* x_in, Scalar* y_out, int lanes) const;
  // The same with the caller's scratch: thread-safe, one scratch per thread.
  void perform_op_lanes(const Scalar* x_in, Scalar* y_out, int lanes,
                        ProductScratch& scratch) const;

 private:
  const ErrorOperator& error_;
  mutable std::vector<double> scratch_;
};

}  // namespace poslsh
