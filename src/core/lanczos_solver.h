// The Lanczos engine behind spectral_error on any symmetric operator, and the
// bound its stopping rule rests on: private to the core (the public entry is
// spectral_error, poslsh/spectral_error.h), reached by its tests as
// "core/lanczos_solver.h".
#pragma once

#include <poslsh/spectral_error.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <vector>

namespace poslsh::detail {

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
    throw std::logic_error("symmetric_spectral_norm: the operator must be square");
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

}  // namespace poslsh::detail
