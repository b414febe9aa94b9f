// The spectral-norm error ||M~ - L*||_2 (symmetric) or ||T ⊙ (M~ - L*)||_2
// (causal) of MATH §4, computed matrix-free (MATH §6).
// The solver, its stopping rule and its certified upper end, with measured
// costs: docs/design-notes.md, "Design notes: the spectral-norm solver".
#pragma once

#include <poslsh/error_operator.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace poslsh {

enum class SolveStatus { kOk, kNotConverged };
std::string_view to_string(SolveStatus status);

struct SpectralErrorOptions {
  // Requested relative accuracy of the norm (upper estimate / lower bound - 1).
  double rel_tol = 1e-6;
  // Cap on Lanczos steps; each step is one product with the symmetric error
  // operator, or two (E_c and E_c^T) in the causal form.
  std::int64_t max_iterations = 5000;
  // Start vectors: standard normal entries from Stream(seed, trial, l,
  // kLanczosStart) for start l = 0 .. starts - 1.
  std::uint64_t seed = 0;
  std::uint64_t trial = 0;
  // Independent random starts, run in lockstep as lanes of one product (1..8).
  // They guard the estimate (a start nearly orthogonal to the top eigenvector
  // sits on a plateau below the others: the lanes must agree) and tighten the
  // certificate (all starts fall short together with probability p^starts).
  int starts = 2;
  // The certified upper end holds with probability >= 1 - upper_q over the starts.
  double upper_q = 1e-6;
  // The solve goes on, after the estimate met rel_tol, until the certified
  // relative width upper / lower - 1 is at most this (+inf: do not wait).
  double upper_width = 1e-2;
  // Threads for the products and the vector work (>= 1): the starts are split
  // among them, so at most `starts` threads help, and only from n = 2^16 on.
  // Every start's arithmetic is the same whatever the split: results are
  // bit-identical for any thread count.
  int threads = 1;
};

// Throws ArgumentError naming the field (rel_tol, max_iterations, starts,
// upper_q, upper_width) unless the options are usable; spectral_error checks
// them itself, front ends may call this first to fail before any work.
void validate_spectral_error_options(const SpectralErrorOptions& options);

struct SpectralErrorResult {
  // The norm when status == kOk, NaN otherwise (never a silent number).
  double value = 0.0;
  // The rigorous lower bound reached (the largest |Ritz value|), always set.
  double lower = 0.0;
  // Relative accuracy achieved: estimated (upper - lower) / lower; +inf when the
  // Ritz values had not started to contract.
  double accuracy = 0.0;
  // Certified upper end: the norm is <= upper with probability >= 1 - upper_q
  // over the random starts (Kuczynski-Wozniakowski; docs/MATH.md §9, "A
  // certified interval for the spectral error"); +inf when k steps cannot
  // certify anything yet. Always set, whatever the status.
  double upper = std::numeric_limits<double>::infinity();
  std::int64_t iterations = 0;  // Lanczos steps
  std::int64_t matvecs = 0;     // products with E or E^T
  SolveStatus status = SolveStatus::kNotConverged;
};

SpectralErrorResult spectral_error(const ErrorOperator& error,
                                   const SpectralErrorOptions& options = {});

// Reference path: Spectra SymEigsSolver (LargestMagn on E, or LargestAlge on the
// normal operator in the causal form, then the square root), stopping on
// residuals with tolerance `tol`. `accuracy` reports the residual-based bound
// on the eigenvalue, relative. Spectra's own fixed start vector unless
// options-based start is asked for by use_seeded_start.
SpectralErrorResult spectral_error_spectra(const ErrorOperator& error, double tol,
                                           std::int64_t ncv = 20, std::int64_t max_restarts = 10000,
                                           bool use_seeded_start = true,
                                           const SpectralErrorOptions& start = {});

}  // namespace poslsh
