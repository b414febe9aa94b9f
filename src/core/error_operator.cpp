#include <poslsh/error_operator.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "lanczos_op.h"
#include "lanczos_pass.h"
#include "lanes.h"
#include "prefix_sums.h"
#include "tiled_product.h"
#include "transpose_ops.h"

namespace poslsh {

using detail::alibi_kernel_transpose_op;
using detail::mask_mean_transpose_op;
using detail::prefix_sums;

void detail::mask_mean_transpose_op(const MaskMean& mask, const double* x, double* y) {
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

void detail::alibi_kernel_transpose_op(const AlibiKernel& kernel, const double* x, double* y) {
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

namespace {

std::span<const PositionalHash> hashes_of(const HashParameters& hash,
                                          std::span<const PositionalHash> hashes) {
  if (static_cast<std::int64_t>(hashes.size()) != hash.s())
    throw std::logic_error("ErrorOperator: " + std::to_string(hashes.size()) +
                           " hashes given for s = " + std::to_string(hash.s()));
  return hashes;
}

}  // namespace

ErrorOperator::ErrorOperator(const HashParameters& hash, std::span<const PositionalHash> hashes,
                             Form form)
    : mask_(hash.n(), hashes_of(hash, hashes), form), kernel_(hash, form) {}

ErrorOperator::ErrorOperator(std::int64_t n, std::span<const PositionalHash> hashes, double sigma,
                             Form form)
    : ErrorOperator(HashParameters(n, sigma, static_cast<std::int64_t>(hashes.size())), hashes,
                    form) {}

namespace {

// The products of E on kLanes interleaved vectors (kLanes = 1: one vector),
// fused: the tiled pass over the blocks (src/core/tiled_product.h) finishes
// each tile of M~ x at once and subtracts the forward ALiBi recursion there;
// then (symmetric, or transposed causal) one backward pass. The lanes run
// lane-parallel, each with the same arithmetic in the same order as alone.
enum class LaneProduct { kForward, kTranspose };

// The first pass of a Lanczos step on the product (lanczos_pass.h), fused
// into the product's last pass: w = A x - beta v_prev, alpha = v . w, with v
// the Lanczos vector (x itself, or the normal operator's input). Null beta:
// a plain product.
struct LanczosPass {
  const double* v = nullptr;
  const double* beta = nullptr;
  const double* v_prev = nullptr;
  double* alpha = nullptr;
};

template <int kLanes>
void error_product_lanes(const MaskMean& mask, double r, Form form, LaneProduct which,
                         const double* __restrict x, double* __restrict y, ProductScratch& scratch,
                         const LanczosPass& pass = {}) {
  const std::int64_t n = mask.rows();
  const double inv_s = 1.0 / static_cast<double>(mask.num_hashes());
  double g[kLanes] = {};
  if (form == Form::kSymmetric) {
    // y = M~ x - (f + g - x), f forward and g backward recursions.
    detail::tiled_forward_pass<detail::BlockValue::kSum, kLanes>(
        mask, x, r, detail::ProductAccess::tiles(scratch),
        [&](std::int64_t, std::int64_t e, int, double acc, double f, const double*, std::int64_t) {
          y[e] = acc * inv_s - f + x[e];
        });
  } else if (which == LaneProduct::kForward) {
    // Causal: (M~_c x)_i = P[i+1] - (1/s) Σ_k P[start_k(i)].
    detail::tiled_forward_pass<detail::BlockValue::kPrefixAtStart, kLanes>(
        mask, x, r, detail::ProductAccess::tiles(scratch),
        [&](std::int64_t i, std::int64_t e, int l, double acc, double f, const double* P,
            std::int64_t p_mask) {
          y[e] = (P[((i + 1) & p_mask) * kLanes + l] - acc * inv_s) - f;
        });
    if (pass.beta)
      detail::lanczos_first_pass<kLanes>(n, pass.beta, pass.v, pass.v_prev, y, pass.alpha);
    return;
  } else {
    // (M~_c^T x)_i = (1/s) Σ_k P[end_k(i)] - P[i]; (L*_c^T x)_i = g_i (backward).
    detail::tiled_forward_pass<detail::BlockValue::kPrefixAtEnd, kLanes>(
        mask, x, r, detail::ProductAccess::tiles(scratch),
        [&](std::int64_t i, std::int64_t e, int l, double acc, double, const double* P,
            std::int64_t p_mask) { y[e] = acc * inv_s - P[(i & p_mask) * kLanes + l]; });
  }
  // Backward recursion (symmetric L*, or the transposed causal L*_c), with
  // the Lanczos pass fused in when asked for: one pass over y instead of two.
  if (!pass.beta) {
    for (std::int64_t i = n - 1; i >= 0; --i)
      for (int l = 0; l < kLanes; ++l) {
        const std::int64_t e = i * kLanes + l;
        g[l] = x[e] + r * g[l];
        y[e] -= g[l];
      }
    return;
  }
  double bt[kLanes], a[kLanes] = {};
  for (int l = 0; l < kLanes; ++l) bt[l] = pass.beta[l];
  const double* __restrict v = pass.v;
  const double* __restrict vp = pass.v_prev;
  for (std::int64_t i = n - 1; i >= 0; --i)
    for (int l = 0; l < kLanes; ++l) {
      const std::int64_t e = i * kLanes + l;
      g[l] = x[e] + r * g[l];
      y[e] = detail::lanczos_pass_entry(y[e] - g[l], bt[l], vp[e], v[e], a[l]);
    }
  for (int l = 0; l < kLanes; ++l) pass.alpha[l] = a[l];
}

void error_product_dispatch(const MaskMean& mask, double r, Form form, LaneProduct which,
                            const double* x, double* y, int lanes, ProductScratch& scratch,
                            const LanczosPass& pass = {}) {
  dispatch_lanes(lanes, "error_operator", [&](auto L) {
    error_product_lanes<L>(mask, r, form, which, x, y, scratch, pass);
  });
}

}  // namespace

void ErrorOperator::perform_op(const Scalar* x, Scalar* y) const {
  error_product_lanes<1>(mask_, kernel_.ratio(), form(), LaneProduct::kForward, x, y, scratch_);
}

void ErrorOperator::perform_transpose_op(const Scalar* x, Scalar* y) const {
  error_product_lanes<1>(mask_, kernel_.ratio(), form(), LaneProduct::kTranspose, x, y, scratch_);
}

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
  std::vector<double>& mid = detail::ProductAccess::normal(scratch);
  mid.resize(static_cast<std::size_t>(rows() * lanes));
  error_.perform_op_lanes(x, mid.data(), lanes, scratch);
  error_.perform_transpose_op_lanes(mid.data(), y, lanes, scratch);
}

namespace detail {

void lanczos_op_lanes(const ErrorOperator& error, const double* x, double* y, int lanes,
                      ProductScratch& scratch, const double* beta, const double* v_prev,
                      double* alpha) {
  error_product_dispatch(error.mask(), error.kernel().ratio(), error.form(), LaneProduct::kForward,
                         x, y, lanes, scratch, {x, beta, v_prev, alpha});
}

void lanczos_transpose_op_lanes(const ErrorOperator& error, const double* x, double* y, int lanes,
                                ProductScratch& scratch, const double* v, const double* beta,
                                const double* v_prev, double* alpha) {
  error_product_dispatch(error.mask(), error.kernel().ratio(), error.form(),
                         LaneProduct::kTranspose, x, y, lanes, scratch, {v, beta, v_prev, alpha});
}

void lanczos_op_lanes(const NormalOperator& normal, const double* x, double* y, int lanes,
                      ProductScratch& scratch, const double* beta, const double* v_prev,
                      double* alpha) {
  std::vector<double>& mid = ProductAccess::normal(scratch);
  mid.resize(static_cast<std::size_t>(normal.rows() * lanes));
  normal.error().perform_op_lanes(x, mid.data(), lanes, scratch);
  lanczos_transpose_op_lanes(normal.error(), mid.data(), y, lanes, scratch, x, beta, v_prev,
                             alpha);
}

}  // namespace detail

}  // namespace poslsh
