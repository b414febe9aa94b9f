// Error bounds for approximate ALiBi attention (MATH §7). An approximation
// replaces the bias L* by B~ (positional LSH: M~; fixed blocks: one block
// mask; sliding window: banded L*) and computes T~ = D~^{-1} (A ⊙ B~) V.
//
// Per-instance certificate (deterministic, always true): with
// ratio_i = Σ_j A[i,j] |B~[i,j] - L*[i,j]| / Σ_j A[i,j] L*[i,j],
//   max_c |T~[i,c] - T*[i,c]| <= 2 ||V||_max ratio_i,
// reported as row_bound[i] and maximised over rows as `certificate`.
// Uniform bound (worst case over Q, K with |q_i·k_j| / sqrt(d) <= β):
//   ||T~ - T*||_max <= 2 e^{2β} ||V||_max ||B~ - L*||_∞ / min_i Σ_j L*[i,j],
// ||·||_∞ the largest absolute row sum; the minimal row sum of L* is
// (1 - r^n) / (1 - r) (symmetric, first row) or 1 (causal, first row).
//
// Cost: B~[i,j] is nonzero only in a contiguous window of j around i (the
// union of the blocks containing i); Σ_j A L* over all j comes from the exact
// float64 pass (SoftmaxRowStats), and the certificate only needs the window:
// O(n · window · d), never an n×n matrix.
#pragma once

#include <poslsh/exact_attention.h>
#include <poslsh/mask_mean.h>

#include <Eigen/Dense>
#include <cstdint>

namespace poslsh {

struct AttentionBounds {
  double certificate = 0.0;     // max_i row_bound[i]
  double uniform_bound = 0.0;   // may be +inf when e^{2β} overflows (still a valid bound)
  double inf_norm_error = 0.0;  // ||B~ - L*||_∞ (form applied)
  double max_abs_logit = 0.0;   // β_qk
  double v_max = 0.0;           // ||V||_max
  Eigen::VectorXd row_bound;    // per-row certificate 2 ||V||_max ratio_i
  // The bounds are about exact arithmetic; T~ and T* are computed in float64,
  // whose rounding (~1e-16 ||V||_max per output, more for long rows) can exceed
  // a zero or tiny certificate (e.g. causal row 0, where both equal v_0). A
  // measured error is compared with bound + rounding_allowance.
  double rounding_allowance = 0.0;  // kRoundingAllowance * v_max
};

// Rounding allowance relative to ||V||_max: ~4500 float64 epsilons, far above
// the float64 evaluation error of these sums and far below any error of
// interest.
inline constexpr double kRoundingAllowance = 1e-12;

// Bounds for positional-LSH (or fixed-block) attention with mask `mask`
// (its form applies). `exact` must be the SoftmaxRowStats of
// exact_alibi_attention<double>(q, k, v, sigma, mask.form()), or those of
// band_exact_attention<double> (BandAttentionResult::stats), whose row sums
// miss at most a fraction row_sum_slack of the true ones: each row's ratio is
// then taken at the end of that interval that makes it largest, so the
// certificate remains a bound.
AttentionBounds lsh_attention_bounds(const ConstRowMatrixRef<double>& q,
                                     const ConstRowMatrixRef<double>& k,
                                     const ConstRowMatrixRef<double>& v, double sigma,
                                     const MaskMean& mask, const SoftmaxRowStats& exact,
                                     const AttentionOptions& options = {});

// Bounds for the sliding window of half-width w.
AttentionBounds window_attention_bounds(const ConstRowMatrixRef<double>& q,
                                        const ConstRowMatrixRef<double>& k,
                                        const ConstRowMatrixRef<double>& v, double sigma,
                                        std::int64_t half_width, Form form,
                                        const SoftmaxRowStats& exact,
                                        const AttentionOptions& options = {});

// ||M~ - L*||_∞ (form applied), exact and matrix-free: O(n (s + window)).
double inf_norm_error(const MaskMean& mask, double sigma);

// min_i Σ_j L*[i,j] for the form (see above).
double min_alibi_row_sum(std::int64_t n, double sigma, Form form);

}  // namespace poslsh
