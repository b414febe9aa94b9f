// The measurement behind one row of `poslsh convergence`: the error operator
// E = M~ - L* (causal: T ⊙ (M~ - L*)) of the given hashes, its spectral norm by
// the certified Lanczos solver and its entrywise errors. convergence_row
// (experiments/convergence/convergence.h) formats it into a CSV row; the Python module's
// spectral_error and max_error return its parts. Both call this one function,
// so a Python result is the table's cell by construction, not by a copy kept
// in step.
//
// The core only: the Python module links this file's library
// (poslsh_convergence_errors) without the runner or the other experiments.
#pragma once

#include <poslsh/hash_parameters.h>
#include <poslsh/max_error.h>
#include <poslsh/positional_hash.h>
#include <poslsh/spectral_error.h>

#include <cstdint>
#include <span>

namespace poslsh {

struct ConvergenceSettings {
  Form form = Form::kSymmetric;
  double p = 0.01;  // failure probability of the bounds
  // The solver's settings; defaults are SpectralErrorOptions' (defined there once).
  double spectral_tol = SpectralErrorOptions{}.rel_tol;  // relative accuracy of the norm
  std::int64_t max_lanczos = SpectralErrorOptions{}.max_iterations;
  std::uint64_t seed = 0;  // seeds the Lanczos start vectors with the trial
  int lanczos_starts = SpectralErrorOptions{}.starts;  // independent starts
  double upper_q = SpectralErrorOptions{}.upper_q;     // failure probability of spectral_upper
  // relative width spectral_upper / spectral_lower - 1 waited for
  double upper_width = SpectralErrorOptions{}.upper_width;
  // Threads inside one row (the solver's starts, the entrywise errors' two
  // chunks); the row is the same for any value.
  int threads = 1;
};

// The solver's options for one trial of a row.
SpectralErrorOptions solver_options(const ConvergenceSettings& settings, std::uint64_t trial);

// Which errors to compute: a row needs both; poslsh.spectral_error and
// poslsh.max_error one each, and skip the other's cost.
struct ConvergenceParts {
  bool spectral = true;
  bool entrywise = true;
};

// The parts not asked for are left value-initialised.
struct ConvergenceErrors {
  SpectralErrorResult spectral;
  EntrywiseError entrywise;
};

// The errors of the mean of `hashes`' masks against ALiBi at hash's (n, sigma),
// the Lanczos starts keyed by (settings.seed, trial). Each part is the same
// bits whether or not the other is computed. `hash` was checked when it was
// made; hashes.size() must equal hash.s(). Throws what ErrorOperator,
// spectral_error and entrywise_error throw on bad arguments.
ConvergenceErrors convergence_errors(const HashParameters& hash, std::uint64_t trial,
                                     std::span<const PositionalHash> hashes,
                                     const ConvergenceSettings& settings,
                                     ConvergenceParts parts = {});

// The same from raw values (the Python module's entry), checked once here.
ConvergenceErrors convergence_errors(std::int64_t n, double sigma, std::uint64_t trial,
                                     std::span<const PositionalHash> hashes,
                                     const ConvergenceSettings& settings,
                                     ConvergenceParts parts = {});

}  // namespace poslsh
