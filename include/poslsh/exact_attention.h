// Exact ALiBi attention (MATH §7): T* = D*^{-1} (A ⊙ L*) V with
// A[i,j] = exp(q_i·k_j / sqrt(d)) and L*[i,j] = exp(-|i-j| / sigma), i.e.
// softmax_j(q_i·k_j / sqrt(d) - |i-j| / sigma) V, symmetric or causal.
//
// Tiled over queries and keys with an online softmax (online_softmax.h):
// memory O(n d + tile²), never an n×n matrix. Every key is visited, so the cost
// is O(n² d) whatever sigma is. float is the fast path; double is the reference
// that error measurements use.
#pragma once

#include <poslsh/alibi_kernel.h>
#include <poslsh/attention_options.h>
#include <poslsh/types.h>

#include <Eigen/Dense>
#include <cstdint>
#include <span>
#include <vector>

namespace poslsh {

// Softmax row statistics of one exact pass, used by the certificate
// (attention_bounds.h): row_max[i] = max_j logit(i,j) (bias included),
// row_sum[i] = Σ_j exp(logit(i,j) - row_max[i]) = e^{-row_max[i]} Σ_j A L*,
// max_abs_logit = max |q_i·k_j| / sqrt(d) over the pairs the form keeps.
// From a pass that left keys out (band_exact_attention), row_sum covers the
// keys kept and row_sum_slack[i] = r_i bounds the rest: the full row sum lies
// in [row_sum[i], row_sum[i] (1 + r_i)]; max_abs_logit is then an upper
// bound (Cauchy-Schwarz) rather than the maximum. Empty slack: exact sums.
struct SoftmaxRowStats {
  Eigen::VectorXd row_max;
  Eigen::VectorXd row_sum;
  double max_abs_logit = 0.0;
  Eigen::VectorXd row_sum_slack;
};

// Exact ALiBi attention of one head. q, k: n × d; v: n × dv. Throws
// InputError on mismatched shapes or n < 1, ArgumentError on a bad sigma. `stats`,
// if given, receives the row statistics (converted to double).
template <typename Scalar>
RowMatrix<Scalar> exact_alibi_attention(const ConstRowMatrixRef<Scalar>& q,
                                        const ConstRowMatrixRef<Scalar>& k,
                                        const ConstRowMatrixRef<Scalar>& v, double sigma, Form form,
                                        const AttentionOptions& options = {},
                                        SoftmaxRowStats* stats = nullptr);

// Multi-head: head h uses sigmas[h] (standard ALiBi: alibi_head_sigmas(H),
// alibi_heads.h) and head h of each stack (stacks have 1 or
// sigmas.size() heads, equal n and d). Returns a stack of sigmas.size() heads.
template <typename Scalar>
HeadStack<Scalar> exact_alibi_attention(const HeadStack<Scalar>& q, const HeadStack<Scalar>& k,
                                        const HeadStack<Scalar>& v, std::span<const double> sigmas,
                                        Form form, const AttentionOptions& options = {});

// Throws InputError unless q, k, v describe one attention problem:
// n >= 1 rows each, q and k with equal d >= 1, v with dv >= 1.
void validate_attention_shapes(Eigen::Index q_rows, Eigen::Index q_cols, Eigen::Index k_rows,
                               Eigen::Index k_cols, Eigen::Index v_rows, Eigen::Index v_cols);

// Floating-point operations of dense attention (two n×n×d products): 4 n² d.
double exact_attention_flops(std::int64_t n, std::int64_t d, Form form);

}  // namespace poslsh
