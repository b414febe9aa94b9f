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
    : mask_(n, hashes, form), kernel_(n, sigma, form) {}

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
    mask_.scatter(BlockValue::kSum, P, D);
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
    mask_.scatter(BlockValue::kPrefixAtStart, P, D);
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
  mask_.scatter(BlockValue::kPrefixAtEnd, P, D);
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
