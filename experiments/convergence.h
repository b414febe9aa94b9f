// `poslsh convergence`: spectral, max-norm and row-sum errors of M~ against
// ALiBi as s grows, with the bounds of MATH §3-§5 beside every measurement.
// One CSV row per (n, sigma, s, trial); the hashes are draw_hashes(seed, trial,
// s, sigma), exactly what `poslsh sample` exports for that seed and trial.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "alibi_kernel.h"
#include "csv_table.h"
#include "experiment.h"
#include "positional_hash.h"
#include "sweep.h"

namespace poslsh {

struct ConvergenceSettings {
  Form form = Form::kSymmetric;
  double p = 0.01;             // failure probability of the bounds
  double spectral_tol = 1e-6;  // relative accuracy asked of the spectral norm
  std::int64_t max_lanczos = 5000;
  std::uint64_t seed = 0;  // seeds the Lanczos start vector with the trial
};

// The CSV schema. `seconds` (wall time of the row) is the only timing column.
const std::vector<std::string>& convergence_columns();

// The row for one (n, sigma, trial) and the given hashes (s = hashes.size()).
// Taking the hashes as input lets tests build tables from deliberately wrong
// samplers. status is "ok" or "not_converged" (spectral_error then empty).
CsvRow convergence_row(std::int64_t n, double sigma, std::uint64_t trial,
                       std::span<const PositionalHash> hashes, const ConvergenceSettings& settings);

// The checks of `poslsh check` on a convergence table:
//  1. bounds: spectral (upper estimate value (1 + accuracy)), max-norm and b_max
//     at most their bounds. Rows of one trial share their hashes (nested in s,
//     shared across sigma and n), but the trials of one (form, n, sigma, s)
//     cell are independent: per cell, the number of violating trials may be at
//     most what a Binomial(trials, p) exceeds with probability 1e-3 / cells
//     (Bonferroni: family-wise false alarm <= 1e-3);
//  2. rate: per (form, n, sigma) with >= 4 values of s >= 4, least-squares slope
//     of log(mean error over trials) against log s in [-0.6, -0.4], for the
//     spectral and the max-norm error;
//  3. constant: per (form, n, sigma), mean spectral_error sqrt(s) / sigma
//     within a factor 2 across s >= 4; across n (per form, sigma) the fitted
//     exponent of its growth in ln n is reported (theory allows up to 1/2).
//  Rows whose spectral solve did not converge are counted and reported, and
//  left out of the spectral checks.
std::vector<CheckOutcome> check_convergence_table(const CsvTable& table);

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
};
int run_convergence_bench(const ConvergenceBenchOptions& options);

}  // namespace poslsh
