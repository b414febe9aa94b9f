#include <poslsh/alibi_kernel.h>
#include <poslsh/argument_error.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace poslsh {

// Any s >= 1 completes the parameters: the kernel does not depend on it.
AlibiKernel::AlibiKernel(std::int64_t n, double sigma, Form form)
    : AlibiKernel(HashParameters(n, sigma, 1), form) {}

AlibiKernel::AlibiKernel(const HashParameters& hash, Form form)
    : n_(hash.n()), sigma_(hash.sigma()), form_(form), r_(std::exp(-1.0 / hash.sigma())) {}

void AlibiKernel::perform_op(const Scalar* x, Scalar* y) const {
  // Forward pass f_i = x_i + r f_{i-1} is the causal product; the symmetric one
  // adds the backward pass g_i = x_i + r g_{i+1} and removes the doubled x_i.
  double f = 0.0;
  for (std::int64_t i = 0; i < n_; ++i) {
    f = x[i] + r_ * f;
    y[i] = f;
  }
  if (form_ == Form::kCausal) return;
  double g = 0.0;
  for (std::int64_t i = n_ - 1; i >= 0; --i) {
    g = x[i] + r_ * g;
    y[i] += g - x[i];
  }
}

double AlibiKernel::entry(std::int64_t i, std::int64_t j) const {
  if (form_ == Form::kCausal && j > i) return 0.0;
  return std::exp(-static_cast<double>(std::llabs(i - j)) / sigma_);
}

Eigen::MatrixXd AlibiKernel::dense() const {
  Eigen::MatrixXd m(n_, n_);
  for (std::int64_t j = 0; j < n_; ++j)
    for (std::int64_t i = 0; i < n_; ++i) m(i, j) = entry(i, j);
  return m;
}

double alibi_norm_limit(double sigma) { return 1.0 / std::tanh(0.5 / sigma); }

}  // namespace poslsh
