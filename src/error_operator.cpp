#include "error_operator.h"

#include <stdexcept>

namespace poslsh {

void mask_mean_transpose_op(const MaskMean& mask, const double* x, double* y) {
  if (mask.form() == Form::kSymmetric) {
    mask.perform_op(x, y);
    return;
  }
  const std::int64_t n = mask.rows();
  const std::int64_t s = mask.num_hashes();
  std::vector<double> prefix(n + 1), diff(n + 1, 0.0);
  prefix[0] = 0.0;
  for (std::int64_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + x[i];
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
    : mask_(n, hashes, form), kernel_(n, sigma, form) {}

void ErrorOperator::perform_op(const Scalar* x, Scalar* y) const {
  scratch_.resize(static_cast<std::size_t>(rows()));
  mask_.perform_op(x, y);
  kernel_.perform_op(x, scratch_.data());
  for (Eigen::Index i = 0; i < rows(); ++i) y[i] -= scratch_[i];
}

void ErrorOperator::perform_transpose_op(const Scalar* x, Scalar* y) const {
  if (form() == Form::kSymmetric) {
    perform_op(x, y);
    return;
  }
  scratch_.resize(static_cast<std::size_t>(rows()));
  mask_mean_transpose_op(mask_, x, y);
  alibi_kernel_transpose_op(kernel_, x, scratch_.data());
  for (Eigen::Index i = 0; i < rows(); ++i) y[i] -= scratch_[i];
}

Eigen::MatrixXd ErrorOperator::dense() const { return mask_.dense() - kernel_.dense(); }

void NormalOperator::perform_op(const Scalar* x, Scalar* y) const {
  scratch_.resize(static_cast<std::size_t>(rows()));
  error_.perform_op(x, scratch_.data());
  error_.perform_transpose_op(scratch_.data(), y);
}

}  // namespace poslsh
