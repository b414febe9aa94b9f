// `poslsh attention`: error of positional-LSH attention and of its baselines
// against exact ALiBi attention (MATH §7-§8), with the per-instance
// certificate and the uniform bound; `poslsh bench attention`: their speed.
//
// Table rows (one per (n, d, sigma, s, trial, estimator)):
//   lsh     one row per (s, trial); hashes draw_hashes(seed, trial, s, sigma),
//           exactly what `poslsh sample` exports for that seed and trial
//           (with --alibi-heads --independent-heads, seed is the head's own:
//           independent_head_seed in alibi_heads.h).
//   window  without --width: one row per (s, trial), half-width matched to the
//           cost of that LSH instance (keys per query, keys_per_query column);
//           with --width: one row per cell, s = 0, trial = 0.
//   fixed   one row per cell, s = 0, trial = 0: blocks of width --width, or by
//           default round(2 sigma) = E[delta], the expected LSH pitch, so that a
//           fixed block has the mean width (and per-mask cost) of an LSH block.
//   path-exact, path-band, path-lsh   with --paths-n N, 40 rows of the path
//           probe (attention_paths.h): each path a user calls, float32 and
//           float64, single- and multi-head, against a dense oracle; the
//           columns precision and layout are theirs (empty elsewhere).
// max_error = max |T~ - T*|, rel_frobenius_error = ||T~ - T*||_F / ||T*||_F,
// both from float64 computations; seconds = wall time of the float64 estimator.
// control_max_error, control_rel_frobenius_error (lsh rows): the same errors of
// the same estimator on the (s, trial) hashes of the independent control
// sampler (control_sampler.h, never planted), the error-law lines' control arm.
#pragma once

#include <poslsh/exact_attention.h>
#include <poslsh/positional_hash.h>

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "runner/csv_table.h"

namespace poslsh {

// Seeded Gaussian Q, K, V of one problem size, shared by all sigmas/heads:
// stream (seed, 0, tensor, kSyntheticQkv), tensor 0/1/2 = Q/K/V, entries drawn
// row-major (so the first rows do not depend on n). Q and K entries have
// standard deviation sqrt(qk_scale), so logits q·k/sqrt(d) have standard
// deviation qk_scale; V is standard normal.
struct QkvData {
  HeadStack<double> q, k, v;
};
QkvData synthetic_qkv(std::uint64_t seed, std::int64_t n, std::int64_t d, double qk_scale);

// DIR/q.npy, DIR/k.npy, DIR/v.npy (float32 or float64, C order, (n, d) or
// (H, n, d)). Throws InputError (one line) on a malformed file or
// mismatched shapes between the files.
QkvData load_qkv_dir(const std::string& dir);

// The column list of attention tables.
const std::vector<std::string>& attention_columns();

// 16 hex digits identifying a set of hashes (every pitch and shift bit
// pattern): the hash_digest column of lsh rows and of the paths' rows of
// independent heads.
std::string hash_digest(const std::vector<PositionalHash>& hashes);

// The checks of `poslsh check` on an attention table (see attention_checks.cpp):
// certificate per row (deterministic, PASS/FAIL); uniform bound (INFO with its
// slack, FAIL only as a guard); error-law per (group, s) (exact two-sample
// rank test of the lsh errors against the control sampler's, alpha split by
// Bonferroni) and trials-distinct; the rate and length slopes, beats-fixed and
// the equal-cost window (INFO). Throws InputError for a duplicated
// column or a NaN, infinite or negative max_error (see attention_checks.cpp).
std::vector<CheckOutcome> check_attention_table(const CsvTable& table,
                                                double alpha = kCheckFamilyAlpha);

// `poslsh bench attention` (attention_bench.cpp).
Action add_attention_bench(CLI::App& bench_parent);

}  // namespace poslsh
