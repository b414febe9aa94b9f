#include "experiments/convergence/convergence_errors.h"

#include <poslsh/error_operator.h>

namespace poslsh {

SpectralErrorOptions solver_options(const ConvergenceSettings& settings, std::uint64_t trial) {
  SpectralErrorOptions options;
  options.rel_tol = settings.spectral_tol;
  options.max_iterations = settings.max_lanczos;
  options.seed = settings.seed;
  options.trial = trial;
  options.starts = settings.lanczos_starts;
  options.upper_q = settings.upper_q;
  options.upper_width = settings.upper_width;
  options.threads = settings.threads;
  return options;
}

ConvergenceErrors convergence_errors(const HashParameters& hash, std::uint64_t trial,
                                     std::span<const PositionalHash> hashes,
                                     const ConvergenceSettings& settings, ConvergenceParts parts) {
  // One operator for both parts: its mask (the blocks of s hashes) is the
  // larger part of a row's memory and a share of its time.
  const ErrorOperator error(hash, hashes, settings.form);
  ConvergenceErrors out;
  if (parts.spectral) out.spectral = spectral_error(error, solver_options(settings, trial));
  if (parts.entrywise) out.entrywise = entrywise_error(error, settings.threads);
  return out;
}

ConvergenceErrors convergence_errors(std::int64_t n, double sigma, std::uint64_t trial,
                                     std::span<const PositionalHash> hashes,
                                     const ConvergenceSettings& settings, ConvergenceParts parts) {
  return convergence_errors(HashParameters(n, sigma, static_cast<std::int64_t>(hashes.size())),
                            trial, hashes, settings, parts);
}

}  // namespace poslsh
