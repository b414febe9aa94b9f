#include <poslsh/error_operator.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "lanes.h"

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
  prefix_sums(x, n, scratch_.prefix);
  scratch_.diff.assign(n + 1, 0.0);
  double* P = scratch_.prefix.data();
  double* D = scratch_.diff.data();
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
  prefix_sums(x, n, scratch_.prefix);
  scratch_.diff.assign(n + 1, 0.0);
  double* P = scratch_.prefix.data();
  double* D = scratch_.diff.data();
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

namespace {

// Lane-parallel versions of perform_op / perform_transpose_op: the same
// arithmetic per lane, in the same order (so each lane matches the
// single-vector product exactly), with kLanes independent recursions
// interleaved, which the compiler turns into SIMD.
enum class LaneProduct { kForward, kTranspose };

template <int kLanes>
void prefix_sums_lanes(const double* x, std::int64_t n, std::vector<double>& P) {
  P.resize(static_cast<std::size_t>((n + 1) * kLanes));
  for (int l = 0; l < kLanes; ++l) P[l] = 0.0;
  for (std::int64_t i = 0; i < n; ++i)
    for (int l = 0; l < kLanes; ++l)
      P[(i + 1) * kLanes + l] = P[i * kLanes + l] + x[i * kLanes + l];
}

template <int kLanes>
void error_product_lanes(const MaskMean& mask, double r, Form form, LaneProduct which,
                         const double* x, double* y, ProductScratch& scratch) {
  std::vector<double>& prefix = scratch.prefix;
  std::vector<double>& diff = scratch.diff;
  const std::int64_t n = mask.rows();
  prefix_sums_lanes<kLanes>(x, n, prefix);
  diff.assign(static_cast<std::size_t>((n + 1) * kLanes), 0.0);
  const double* P = prefix.data();
  double* D = diff.data();
  const double inv_s = 1.0 / static_cast<double>(mask.num_hashes());
  double acc[kLanes] = {}, f[kLanes] = {}, g[kLanes] = {};
  const bool symmetric = form == Form::kSymmetric;
  if (symmetric) {
    mask.scatter_lanes(BlockValue::kSum, P, D, kLanes, scratch.state);
    for (std::int64_t i = 0; i < n; ++i)
      for (int l = 0; l < kLanes; ++l) {
        const std::int64_t e = i * kLanes + l;
        acc[l] += D[e];
        f[l] = x[e] + r * f[l];
        y[e] = acc[l] * inv_s - f[l] + x[e];
      }
  } else if (which == LaneProduct::kForward) {
    mask.scatter_lanes(BlockValue::kPrefixAtStart, P, D, kLanes, scratch.state);
    for (std::int64_t i = 0; i < n; ++i)
      for (int l = 0; l < kLanes; ++l) {
        const std::int64_t e = i * kLanes + l;
        acc[l] += D[e];
        f[l] = x[e] + r * f[l];
        y[e] = (P[e + kLanes] - acc[l] * inv_s) - f[l];
      }
    return;
  } else {
    mask.scatter_lanes(BlockValue::kPrefixAtEnd, P, D, kLanes, scratch.state);
    for (std::int64_t i = 0; i < n; ++i)
      for (int l = 0; l < kLanes; ++l) {
        const std::int64_t e = i * kLanes + l;
        acc[l] += D[e];
        y[e] = acc[l] * inv_s - P[e];
      }
  }
  // Backward recursion (symmetric L*, or the transposed causal L*_c).
  for (std::int64_t i = n - 1; i >= 0; --i)
    for (int l = 0; l < kLanes; ++l) {
      const std::int64_t e = i * kLanes + l;
      g[l] = x[e] + r * g[l];
      y[e] -= g[l];
    }
}

void error_product_dispatch(const MaskMean& mask, double r, Form form, LaneProduct which,
                            const double* x, double* y, int lanes, ProductScratch& scratch) {
  dispatch_lanes(lanes, "error_operator",
                 [&](auto L) { error_product_lanes<L>(mask, r, form, which, x, y, scratch); });
}

}  // namespace

void ErrorOperator::perform_op_lanes(const Scalar* x, Scalar* y, int lanes) const {
  perform_op_lanes(x, y, lanes, scratch_);
}

void ErrorOperator::perform_transpose_op_lanes(const Scalar* x, Scalar* y, int lanes) const {
  perform_transpose_op_lanes(x, y, lanes, scratch_);
}

void ErrorOperator::perform_op_lanes(const Scalar* x, Scalar* y, int lanes,
                                     ProductScratch& scratch) const {
  error_product_dispatch(mask_, kernel_.ratio(), form(), LaneProduct::kForward, x, y, lanes,
                         scratch);
}

void ErrorOperator::perform_transpose_op_lanes(const Scalar* x, Scalar* y, int lanes,
                                               ProductScratch& scratch) const {
  error_product_dispatch(mask_, kernel_.ratio(), form(), LaneProduct::kTranspose, x, y, lanes,
                         scratch);
}

Eigen::MatrixXd ErrorOperator::dense() const { return mask_.dense() - kernel_.dense(); }

void NormalOperator::perform_op(const Scalar* x, Scalar* y) const {
  scratch_.resize(static_cast<std::size_t>(rows()));
  error_.perform_op(x, scratch_.data());
  error_.perform_transpose_op(scratch_.data(), y);
}

void NormalOperator::perform_op_lanes(const Scalar* x, Scalar* y, int lanes) const {
  scratch_.resize(static_cast<std::size_t>(rows() * lanes));
  error_.perform_op_lanes(x, scratch_.data(), lanes);
  error_.perform_transpose_op_lanes(scratch_.data(), y, lanes);
}

void NormalOperator::perform_op_lanes(const Scalar* x, Scalar* y, int lanes,
                                      ProductScratch& scratch) const {
  scratch.normal.resize(static_cast<std::size_t>(rows() * lanes));
  error_.perform_op_lanes(x, scratch.normal.data(), lanes, scratch);
  error_.perform_transpose_op_lanes(scratch.normal.data(), y, lanes, scratch);
}

}  // namespace poslsh
