// The spectral-norm error ||M~ - L*||_2 (symmetric) or ||T ⊙ (M~ - L*)||_2
// (causal) of MATH §4, computed matrix-free (MATH §6).
//
// Why not a residual-based eigensolver. The top of the error matrix's spectrum
// clusters as n grows (localised modes repeat along the sequence), so the top
// eigenvector is barely determined and a stopping rule on eigenvector residuals
// needs thousands of products at n = 65536, while the top Ritz value, which is
// all a norm needs, settles long before. The solver here is therefore a plain
// (unrestarted) Lanczos process that stops on the VALUE:
//   - Memory O(n): three vectors, no reorthogonalisation. Loss of orthogonality
//     only creates duplicate copies of converged Ritz values (Paige 1976); the
//     extreme Ritz values remain Rayleigh quotients of A, hence lower bounds of
//     its extreme eigenvalues up to rounding, and each one is monotone in the
//     number of steps (Cauchy interlacing of the nested tridiagonal matrices).
//   - Extreme Ritz values of the k x k tridiagonal matrix by Sturm bisection,
//     O(k) per bisection step, at every step.
//   - Value-based stopping rule: each tracked extreme Ritz value theta_k rises
//     monotonically to its eigenvalue. Its remaining distance is estimated as
//     twice its rise over the second half of the run, 2 (theta_k - theta_{k/2}).
//     Why this shape: the gap-free bound for Lanczos from a random start
//     (Kuczynski & Wozniakowski 1992) decays like (ln n / k)^2, and under any
//     decay at least as fast as 1/k the distance left after step k is at most
//     the rise over [k/2, k]; geometric convergence (an isolated eigenvalue)
//     makes it far smaller. A shorter window or a geometric extrapolation is
//     NOT safe here: the top of the error spectrum is a cluster of localised
//     modes, and the Ritz value climbs it in a staircase (plateaus of tens of
//     steps, then a rise); measured at n = 65536, sigma = 16, s = 64, a
//     geometric extrapolation under-estimated the remaining error 3-fold.
//     The norm is bracketed by [lower, upper]: lower = the largest |Ritz value|
//     (a lower bound up to rounding), upper = lower plus the estimate (over
//     both ends in the symmetric form). The reported relative accuracy is
//     upper / lower - 1, on the norm (after the square root in the causal
//     case), floored at 1e-13; the solve stops when it is <= rel_tol. Rises at
//     rounding level count as converged. The rule is evaluated at every step
//     up to 64, then about 64 times per doubling of k (bisection on T_k costs
//     O(k)); skipped steps only lengthen the windows.
//     It remains an estimate: a Ritz value that stalls for half the run and
//     then jumps defeats it. The tests and the convergence benchmark compare
//     it with dense eigensolvers (n <= 4096) and tight Spectra runs.
//     Measured (sigma = 16, s = 64, default rel_tol 1e-6): at n = 65536 over
//     8 hash draws the true relative error at the stop was <= 3e-13 (reported
//     accuracy 4e-7 .. 1e-6); 6 draws stop after 40-142 products, 2 draws
//     whose top spectrum clusters need 2015 and 2795 (Spectra at residual tol
//     1e-10 needs 3401 and 3461, 10-20x the time). The estimate is
//     conservative by orders of magnitude once it is met, but no cheaper rule
//     was found safe: in the clustered draws the true error is still 9e-6 at
//     340 steps and 5e-7 at 1000.
//     Why the clustered draws are slow. There the top of the spectrum is a
//     dense band edge, not a few isolated modes: at n = 65536 (seed 3, trial
//     0) the 24 most negative eigenvalues lie within 7.6e-4 (relative) of the
//     extreme one, about 3e-5 apart, the top two 6e-6 apart, and their
//     eigenvectors are spread over a quarter of the sequence (Spectra, 24
//     eigenpairs). Hence what does not help: a block Krylov method with a block
//     of b <= 32 vectors converges at a rate set by the gap to eigenvalue b+1
//     (here < 1e-3 relative) for b products per step; a warm start localised
//     somewhere has no single region to aim at; a polynomial (Chebyshev)
//     filter cannot beat Lanczos in product count. Their cost is the products:
//     at n = 2^20, s = 64 (4.3 M blocks) a product costs ~11 ms of CPU, and
//     the clustered draws seed 3 and 8 (trial 0) need 2560 and 3120 of them:
//     36 s and 45 s wall on a shared 2-core machine (load ~2.5), where the
//     typical draws seed 1 and 2 need 94 and 56 products, ~1 s. The 10 s
//     target is met for typical draws, not for clustered ones.
//   - Symmetric form: both ends of the spectrum are tracked (largest magnitude);
//     causal form: the normal operator x -> E_c^T E_c x, largest eigenvalue,
//     then the square root.
//   - Several independent starts (SpectralErrorOptions::starts, default 2) run
//     in lockstep as lanes of one product (ErrorOperator::perform_op_lanes).
//     The estimate is their best Ritz value, and its accuracy includes their
//     disagreement: a start nearly orthogonal to the top eigenvector sits on a
//     plateau that the rise rule cannot see (docs/MATH.md §9).
//   - A certified upper end (Kuczynski-Wozniakowski, gap-free, both ends of E
//     or E_c^T E_c; docs/MATH.md §9): the norm is <= upper with probability
//     >= 1 - upper_q over the starts. The solve waits for a relative width
//     upper/lower - 1 <= upper_width (default 1e-2) after the estimate met
//     its tolerance. Cost: a product on m lanes streams m vectors, so it costs
//     about m single products at large n (memory-bound); the lanes share the
//     block-start stream and the loop overheads only.
// A Spectra SymEigsSolver path (residual-based) is kept as the reference.
#pragma once

#include <poslsh/error_operator.h>

#include <cstdint>
#include <functional>
#include <limits>
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
};

struct SpectralErrorResult {
  // The norm when status == kOk, NaN otherwise (never a silent number).
  double value = 0.0;
  // The rigorous lower bound reached (the largest |Ritz value|), always set.
  double lower = 0.0;
  // Relative accuracy achieved: estimated (upper - lower) / lower; +inf when the
  // Ritz values had not started to contract.
  double accuracy = 0.0;
  // Certified upper end: the norm is <= upper with probability >= 1 - upper_q
  // over the random starts (Kuczynski-Wozniakowski, docs/MATH.md §6.1); +inf
  // when k steps cannot certify anything yet. Always set, whatever the status.
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
// independent processes in lockstep). Returns the extreme eigenvalue of largest magnitude
// (both_ends) or the largest eigenvalue (PSD operators), with the same accuracy semantics, for the
// eigenvalue itself (no square root). Optional per-step history of the extreme Ritz values (top,
// bottom) for diagnostics.
struct LanczosHistory {
  std::vector<std::int64_t> step;   // steps where the Ritz values were evaluated
  std::vector<double> top, bottom;  // extreme Ritz values there (bottom: both_ends only)
};
SpectralErrorResult lanczos_extreme_eigenvalue(std::int64_t n, const LanesProduct& apply,
                                               bool both_ends, const SpectralErrorOptions& options,
                                               LanczosHistory* history = nullptr);

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
