// The ALiBi kernel L*[i,j] = exp(-|i-j| / sigma) (MATH §1) as a Spectra-style
// operator: an O(n) matrix-vector product by two first-order recursions, and a
// dense matrix for small-n oracles. Causal form: L* ⊙ T, T lower triangular.
#pragma once

#include <poslsh/hash_parameters.h>
#include <poslsh/types.h>

#include <Eigen/Dense>
#include <cstdint>

namespace poslsh {

class AlibiKernel {
 public:
  using Scalar = double;

  // Throws ArgumentError unless n >= 1 and sigma is finite and > 0.
  AlibiKernel(std::int64_t n, double sigma, Form form = Form::kSymmetric);
  // The kernel that hashes with these parameters estimate (their n and
  // sigma; s plays no part). Checks nothing: HashParameters is valid.
  explicit AlibiKernel(const HashParameters& hash, Form form = Form::kSymmetric);

  Eigen::Index rows() const { return n_; }
  Eigen::Index cols() const { return n_; }
  double sigma() const { return sigma_; }
  Form form() const { return form_; }
  // r = exp(-1/sigma): the ratio of the recursions.
  double ratio() const { return r_; }

  // y = L* x (or (L* ⊙ T) x), O(n).
  void perform_op(const Scalar* x_in, Scalar* y_out) const;
  Eigen::MatrixXd dense() const;

  // Entry L*[i,j] (causal: 0 above the diagonal).
  double entry(std::int64_t i, std::int64_t j) const;

 private:
  std::int64_t n_;
  double sigma_;
  Form form_;
  double r_;
};

// ||L*||_2 < coth(1/(2 sigma)) = (1+r)/(1-r), the Toeplitz symbol's maximum.
double alibi_norm_limit(double sigma);

}  // namespace poslsh
