// `poslsh attention --paths-n N`: every attention path a user can call,
// against a direct evaluation of its definition. The table's other rows run
// float64, one head per call, at n that are multiples of the tiles; the
// Python module runs float32 on float32 input, C++ users call the multi-head
// overloads, and real n are rarely multiples of 64. A defect in any of those
// paths would leave every other line of the table untouched.
//
// The probe: kPathHeads heads (5: not a power of two) with Press et al.'s
// slopes (sigma 4, 16, 64, 256, 2: alibi_head_sigmas, which the paths line
// checks against the closed form of MATH §1 computed on its own), their own
// synthetic Q, K, V (synthetic_qkv(seed, H n, kPathD, kPathQkScale), head h =
// rows [h n, (h+1) n), V cut to its first kPathDv columns, a value width
// other than the key width, and scaled to max |v| = 1 so that an absolute
// deviation is one in units of max |v|), at n = N (the config's is not a
// multiple of the 64-row query tile or the 256-key tile).
// Each estimator a user calls -- exact_alibi_attention, band_exact_attention
// (default tol 2^-24), lsh_attention on kPathHashes hashes of (seed, trial 0)
// per head -- in float32 and float64, one head per call and through the
// multi-head overload (exact and lsh; the library has none for band), with
// kPathWorkers worker threads, in the table's form and the other. Each output
// is compared, every row of every head, with its definition in long double
// (attention_oracle): softmax over the keys with the ALiBi prior
// e^(-|i-j|/sigma) (exact), the same restricted to the band the call kept
// (band), the hash counts c_ij (lsh). One row per (estimator, precision,
// layout, head): estimator path-exact / path-band / path-lsh, columns
// precision and layout, estimator_deviation = the largest |output -
// definition| over both forms, rounding_allowance = the precision's
// allowance (path_rounding_allowance), and, in the table's form, max_error
// and rel_frobenius_error against exact attention (the dense oracle) with
// the estimator's certificate (0 for exact, its own for band and lsh).
#pragma once

#include <poslsh/positional_hash.h>
#include <poslsh/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "experiments/defects/estimator_defect.h"
#include "experiments/defects/planted_defect.h"

namespace poslsh {

inline constexpr std::int64_t kPathD = 16;
// A value width other than the key width: a kernel that takes one for the
// other (the logit scale, an output's columns) is wrong only where they differ.
inline constexpr std::int64_t kPathDv = 9;
// Not a power of two: Press et al.'s slopes interleave (sigma 4, 16, 64, 256, 2).
inline constexpr int kPathHeads = 5;
inline constexpr std::int64_t kPathHashes = 4;
// Logits of standard deviation 2: rows whose weights span more than e^7, so
// that a weight cut there is seen in every estimator, lsh included.
inline constexpr double kPathQkScale = 2.0;
// More than one worker, and fixed (not --threads), so the table is the same
// for every --threads and the workers' hand-off is always exercised.
inline constexpr int kPathWorkers = 3;
// The dense oracle is O(n^2 d) in long double per head and form.
inline constexpr std::int64_t kPathMaxN = 4096;

// Unit roundoff u: 2^-24 (float32) or 2^-53 (float64).
double path_unit_roundoff(bool float32);

// The allowance for |computed - definition| of a softmax-weighted mean of v
// (max |v| = 1), in precision u, of n keys of dimension d whose logits are at
// most beta in size: 2 u ((d + 2)(beta + 1) + n + 8). A first-order
// worst-case bound: each logit's dot product of d terms, its scale and the
// bias are off by at most (d + 2) u (beta + 1) (gamma_d of the standard
// error analysis), which changes each weight by that relative amount; the
// running sums of at most n terms with their rescalings add n u; exp and
// the final division a few u; a mean whose weights move by a relative e moves
// by at most 2 e max |v|. A sound kernel lands far inside it (docs/checks.md
// quotes the measured margin); the planted float32 cut at e^-7 far outside.
double path_rounding_allowance(double unit, std::int64_t n, std::int64_t d, double beta);

// LogPrior (estimator_defect.h) of each definition.
LogPrior alibi_prior(double sigma, Form form);  // -|i - j| / sigma
// The same on the keys the band kept: [q0 - w, q1 + w) for the query tile
// [q0, q1) of 64 rows holding i, w = tile_half_width[i / 64].
LogPrior band_prior(double sigma, Form form, std::vector<std::int64_t> tile_half_width);
// log c_ij, c_ij the number of `hashes` whose block holding i holds j (from
// block_begin and block_end, not from MaskMean).
LogPrior lsh_prior(std::span<const PositionalHash> hashes, std::int64_t n, Form form);

// Row i = sum_j w_ij v_j / sum_j w_ij, w_ij = exp(q_i.k_j / sqrt d + prior(i, j)),
// over every key, in long double. One head.
RowMatrix<double> attention_oracle(const ConstRowMatrixRef<double>& q,
                                   const ConstRowMatrixRef<double>& k,
                                   const ConstRowMatrixRef<double>& v, const LogPrior& prior);

struct PathSpec {
  std::int64_t n = 0;
  std::uint64_t seed = 0;
  Form form = Form::kSymmetric;  // the table's; the other is probed too
  PlantedDefect defect;          // its sampler draws the hashes, its estimator bug is planted
};

// The probe's rows, each with one cell per attention_columns() entry.
std::vector<std::vector<std::string>> attention_path_rows(const PathSpec& spec);

}  // namespace poslsh
