// Certified band-exact ALiBi attention (docs/MATH.md §7): exact attention
// restricted, per 64-row query tile [q0, q1), to the keys [q0 - w, q1 + w)
// (causal: and j <= i), with w chosen so that the keys left out provably carry
// at most a fraction `tol` of each row's softmax mass. ALiBi's bias
// -|i-j|/sigma makes far keys negligible, so exact attention is near-linear in
// n; this makes that a certificate instead of an assumption.
#pragma once

#include <poslsh/exact_attention.h>
#include <poslsh/attention_options.h>
#include <poslsh/types.h>

#include <cstdint>
#include <vector>

namespace poslsh {

struct BandAttentionOptions {
  // Bound on (mass of the keys left out) / (mass of the keys kept), every row.
  // Default 2^-24: below float32 rounding of the output. 0: dense exact
  // attention (every key, exact_alibi_attention).
  double tol = 0x1p-24;
  AttentionOptions attention;
};

template <typename Scalar>
struct BandAttentionResult {
  RowMatrix<Scalar> output;
  // Per row i: the certified bound r_i >= (mass left out) / (mass kept), and
  // the bound r_i / (1 + r_i) * max_c (max_j |v_jc| + |output_ic|) >=
  // max_c |output_ic - exact_ic| (real arithmetic; rounding comes on top).
  Eigen::VectorXd skipped_mass;
  Eigen::VectorXd row_bound;
  // Half-width w of each query tile's key range [q0 - w, q1 + w) (kQueryTile
  // rows; n - 1: every key).
  std::vector<std::int64_t> tile_half_width;
  // Keys whose logits were computed, per query on average (both passes).
  double keys_per_query = 0.0;
  // Row statistics for the certificates of other approximations measured
  // against this output (attention_bounds.h): row_max and row_sum of the keys
  // kept, row_sum_slack = skipped_mass, and max_abs_logit = the largest
  // |q_i·k_j| / sqrt(d) over the pairs computed, raised to the Cauchy-Schwarz
  // bound max_i |q_i| max_j |k_j| / sqrt(d) when any key was left out.
  SoftmaxRowStats stats;
  double certificate() const { return row_bound.size() ? row_bound.maxCoeff() : 0.0; }
};

// The bound behind the band, per row i of tile [q0, q1): every left-out key j
// has logit(i, j) <= |q_i| max_j |k_j| / sqrt(d) - |i - j| / sigma
// (Cauchy-Schwarz), and the left-out keys lie at distances >= i - q0 + w + 1
// (left of the tile's range) and >= q1 + w - i (right of it, symmetric form),
// so the left-out mass is at most exp(|q_i| K / sqrt(d)) times two finite
// geometric sums, while the kept mass is computed exactly. A first pass over
// the keys [q0 - ceil(2 sigma), q1 + ceil(2 sigma)) gives a lower bound on the
// kept mass, from which the tile's w follows in closed form; a second pass
// adds the keys on either side of the first pass's (no key is computed
// twice), and r_i is evaluated on the final kept mass. Large logits (large
// |q| |k|) widen the band; nothing is assumed about Q, K, V. Results are
// bit-identical for any thread count. Throws InputError on bad
// shapes, ArgumentError on a bad sigma or tol not in [0, 1) (band_tol).
// The options band_exact_attention accepts: ArgumentError (band_tol) unless
// tol is in [0, 1). Callers that collect options up front check them here.
void validate_band_attention_options(const BandAttentionOptions& options);

template <typename Scalar>
BandAttentionResult<Scalar> band_exact_attention(const ConstRowMatrixRef<Scalar>& q,
                                                 const ConstRowMatrixRef<Scalar>& k,
                                                 const ConstRowMatrixRef<Scalar>& v, double sigma,
                                                 Form form,
                                                 const BandAttentionOptions& options = {});

}  // namespace poslsh
