// The spectral-norm error ||M~ - L*||_2 (symmetric) or ||T ⊙ (M~ - L*)||_2
// (causal) of MATH §4, computed matrix-free (MATH §6).
// The solver, its stopping rule and its certified upper end, with measured
// costs: docs/ARCHITECTURE.md, "Design notes: the spectral-norm solver".
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

// The Kuczynski-Wozniakowski gap-free bound solved for eps: after k Lanczos
// steps from a uniformly random start on a PSD n x n matrix,
// P(theta_k < (1 - eps) lambda_max) <= 1.648 sqrt(n) exp(-(2k - 1) sqrt(eps)),
// and this returns the eps at which the right side equals p (p in (0, 1)).
double kw_epsilon(std::int64_t n, std::int64_t k, double p);

// `apply(x, y, lanes)` sets y = A x for `lanes` interleaved vectors (entry i of
// vector l at x[i * lanes + l]).
using LanesProduct = std::function<void(const double*, double*, int)>;

// The Lanczos engine on any symmetric operator of size n (options.starts
// independent processes in lockstep). Returns the extreme eigenvalue of
// largest magnitude (both_ends) or the largest eigenvalue (PSD operators),
// with the same accuracy semantics, for the eigenvalue itself (no square root).
SpectralErrorResult lanczos_extreme_eigenvalue(std::int64_t n, const LanesProduct& apply,
                                               bool both_ends, const SpectralErrorOptions& options);
// The same with one product per thread (each safe to call concurrently with
// the others, e.g. through its own ProductScratch): the starts are split into
// min(products.size(), starts) groups, each advanced on a thread of its own.
// options.threads is not read here. Same results as with one product.
SpectralErrorResult lanczos_extreme_eigenvalue(std::int64_t n,
                                               std::span<const LanesProduct> products,
                                               bool both_ends, const SpectralErrorOptions& options);

// The spectral norm (largest |eigenvalue|) of any symmetric operator with
// Spectra's interface: rows(), cols() and perform_op(const double* x_in,
// double* y_out). The same solver, stopping rule and certified upper end as
// spectral_error, with the starts' products made one vector at a time on the
// calling thread (options.threads is not read). spectral_error takes the
// error operator itself because it fuses a Lanczos pass into the product and
// handles the non-symmetric causal form through E^T E.
template <class SymmetricOp>
SpectralErrorResult symmetric_spectral_norm(const SymmetricOp& op,
                                            const SpectralErrorOptions& options = {}) {
  const std::int64_t n = op.rows();
  if (op.cols() != n)
    throw std::invalid_argument("symmetric_spectral_norm: the operator must be square");
  std::vector<double> x(static_cast<std::size_t>(std::max<std::int64_t>(n, 0))), y(x.size());
  const LanesProduct one_at_a_time = [&](const double* in, double* out, int lanes) {
    for (int l = 0; l < lanes; ++l) {
      for (std::int64_t i = 0; i < n; ++i) x[i] = in[i * lanes + l];
      op.perform_op(x.data(), y.data());
      for (std::int64_t i = 0; i < n; ++i) out[i * lanes + l] = y[i];
    }
  };
  return lanczos_extreme_eigenvalue(n, one_at_a_time, true, options);
}

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
