// `poslsh convergence`: spectral, max-norm and row-sum errors of M~ against
// ALiBi as s grows, with the bounds of MATH §3-§5 beside every measurement.
// One CSV row per (n, sigma, s, trial); the hashes are draw_hashes(seed, trial,
// s, sigma), exactly what `poslsh sample` exports for that seed and trial
// (with --alibi-heads --independent-heads, seed is the head's own:
// independent_head_seed in alibi_heads.h).
#pragma once

#include <poslsh/alibi_kernel.h>
#include <poslsh/hash_parameters.h>
#include <poslsh/positional_hash.h>
#include <poslsh/spectral_error.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "experiments/convergence/convergence_errors.h"
#include "experiments/experiment.h"
#include "runner/csv_table.h"
#include "runner/sweep.h"

namespace poslsh {

// The CSV schema. `seconds` (wall time of the row) is the only timing column.
const std::vector<std::string>& convergence_columns();

// The row for one (n, sigma, s, trial) and the given hashes (hash.s() of
// them). Taking the hashes as input lets tests build tables from
// deliberately wrong samplers. status is "ok" or "not_converged"
// (spectral_error then empty). The parameters travel whole into the operator
// and the bounds, which do not check them again.
CsvRow convergence_row(const HashParameters& hash, std::uint64_t trial,
                       std::span<const PositionalHash> hashes, const ConvergenceSettings& settings);
// The same with s = hashes.size(), checking (n, sigma, s) once.
CsvRow convergence_row(std::int64_t n, double sigma, std::uint64_t trial,
                       std::span<const PositionalHash> hashes, const ConvergenceSettings& settings);

// Estimated peak working set of one convergence row, bytes: the blocks of s
// hashes (expected n / (2 sigma) + 2 per hash, at most n), the Lanczos lanes
// and the product's buffers, and the entrywise errors' arrays, plus 25%.
double convergence_memory_bytes(const HashParameters& hash, const ConvergenceSettings& settings);
double convergence_memory_bytes(std::int64_t n, double sigma, std::int64_t s,
                                const ConvergenceSettings& settings);

// The checks of `poslsh check` on a convergence table. alpha is the
// family-wise false-alarm rate the table's statistical tests spend together
// (Bonferroni: half over the 3 x (cells) binomial bound tests, an eighth over
// the (groups) x 2 per-group rate tests, a quarter over the (forms) x 2
// pooled rate tests, an eighth over the groups' trials-distinct lines).
//  0. unusable input throws InputError (one line naming the row and
//     column): a duplicated column; spectral_bound, max_bound or b_max_bound
//     that disagree (relative 1e-9) with their recomputation from (n, sigma,
//     s, p, form) by bounds.h; max_error, inf_error, b_max (and spectral_error
//     on ok rows) NaN, infinite or negative; status not ok / not_converged; two
//     rows for one (form, n, sigma, s, trial). The checks use the recomputed
//     bounds, never the table's.
//  1. bounds: per (form, n, sigma, s, p) cell the trials are independent, so
//     the number of trials above a bound is at most Binomial(trials, p); a cell
//     fails when it exceeds what that binomial exceeds with probability
//     <= its Bonferroni share. Smallest slack bound/value over the rows of
//     configs/default.toml: b_max 1.07, max-norm 1.36 (real tests: PASS/FAIL);
//     spectral 5.24 (slack against spectral_upper): out of a sound run's
//     reach, so INFO with its slack, FAIL only as a guard. A row counts as a
//     violation when spectral_lower (a Ritz value: certain up to rounding) is
//     above the bound, as within when spectral_upper (certified with
//     probability >= 1 - q) is below it; rows in between are counted and
//     reported ("spectral interval"), INFO when they could change a verdict.
//     Tables without spectral_upper (older versions) use spectral_error (1 +
//     spectral_accuracy) on ok rows instead, and the output says so.
//  2. rate: per (form, n, sigma) group and trial, the least-squares slope of
//     log(error) vs log s over s >= 4 (>= 4 such s); the trial slopes are
//     independent; the exact sign test of experiments/checks/rate_interval.h (any law of
//     the slopes) at the group's level: FAIL only when the order-statistic
//     interval for the median lies outside [-0.6, -0.4]; info when too few
//     trials could fail it; n/a with fewer than 3 trials. Spectral and
//     max-norm errors. Pooled, per form: the same test on each trial's slope
//     averaged over the form's tested (n, sigma) groups (the trial stays the
//     unit: the groups of one trial share hashes).
//     trials-distinct: per group, two trials with identical (max_error,
//     inf_error, b_max) at every s FAIL (a stream that ignores the trial
//     index); the chance of that on a sound sampler is bounded and charged
//     to the level, n/a where it is too likely (n small against sigma).
//  3. constant (INFO, covered by the rate test): per (form, n, sigma), mean
//     spectral_error sqrt(s) / sigma across s >= 4; across n (per form, sigma)
//     the fitted exponent of its growth in ln n (theory allows up to 1/2).
//  Rows whose spectral solve did not converge are counted and reported, and
//  left out of the spectral checks.
std::vector<CheckOutcome> check_convergence_table(const CsvTable& table,
                                                  double alpha = kCheckFamilyAlpha);

// The bench behind `poslsh bench convergence` (see convergence_bench.cpp).
struct ConvergenceBenchOptions {
  std::int64_t n_large = 1 << 20;
  std::int64_t n_row = 65536;
  std::int64_t n_dense = 4096;
  double sigma = 16;
  std::int64_t s = 64;
  std::uint64_t seed = 0;
  std::int64_t trials = 1;
  bool no_spectra = false;  // skip the tight Spectra run at n_row that checks the accuracy
  // Whole convergence rows at n_large (trial 0) for each of these seeds, with
  // their median and worst time (empty: skipped).
  std::vector<std::uint64_t> row_seeds;
  int threads = 0;  // inside a row; 0: all hardware threads
  // The scipy eigsh baseline at n_scipy for these seeds (empty: skipped).
  std::vector<std::uint64_t> scipy_seeds;
  std::int64_t n_scipy = 65536;
  std::string python = "python3";  // the interpreter that runs the scipy script
};
int run_convergence_bench(const ConvergenceBenchOptions& options);

}  // namespace poslsh
