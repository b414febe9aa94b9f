// The errors of the estimator that a `poslsh convergence` row measures:
// spectral_error, max_error (both through the experiment's own
// convergence_errors, experiments/convergence/convergence_errors.h, so they equal the
// row's cells bit for bit) and b_max.
#include <pybind11/stl.h>

#include <cstdint>
#include <string>

#include "arguments.h"
#include "bindings.h"
#include "experiments/convergence/convergence_errors.h"

namespace poslsh::python {
namespace {

// The settings of a convergence row with these solver options; n checked
// before anything is built, threads resolved (0: all hardware threads).
ConvergenceSettings row_settings(std::int64_t n, std::uint64_t seed, bool causal, int threads) {
  check_mask_length(n);
  ConvergenceSettings settings;
  settings.form = form_of(causal);
  settings.seed = seed;
  settings.threads = resolve_threads(threads);
  return settings;
}

// One part of the row of (n, sigma, s, seed, trial), without the GIL.
ConvergenceErrors row_errors(std::int64_t n, double sigma, std::int64_t s, std::uint64_t trial,
                             const ConvergenceSettings& settings, ConvergenceParts parts) {
  py::gil_scoped_release release;
  // As the experiment's rows: the hashes of (seed, trial), Lanczos starts
  // keyed by the same (seed, trial).
  const auto hashes = draw_hashes(settings.seed, trial, s, sigma);
  return convergence_errors(n, sigma, trial, hashes, settings, parts);
}

py::dict spectral_error_binding(std::int64_t n, double sigma, std::int64_t s, std::uint64_t seed,
                                std::uint64_t trial, bool causal, double tol,
                                std::int64_t max_iterations, int starts, double upper_q,
                                double upper_width, int threads) {
  ConvergenceSettings settings = row_settings(n, seed, causal, threads);
  settings.spectral_tol = tol;
  settings.max_lanczos = max_iterations;
  settings.lanczos_starts = starts;
  settings.upper_q = upper_q;
  settings.upper_width = upper_width;
  // Before the operator is built, which at large n takes a while.
  validate_spectral_error_options(solver_options(settings, trial));
  const SpectralErrorResult r =
      row_errors(n, sigma, s, trial, settings, {.spectral = true, .entrywise = false}).spectral;
  py::dict d;
  d["value"] = r.value;
  d["lower"] = r.lower;
  d["upper"] = r.upper;
  d["accuracy"] = r.accuracy;
  d["iterations"] = r.iterations;
  d["matvecs"] = r.matvecs;
  d["status"] = std::string(to_string(r.status));
  return d;
}

py::dict max_error_binding(std::int64_t n, double sigma, std::int64_t s, std::uint64_t seed,
                           std::uint64_t trial, bool causal, int threads) {
  const ConvergenceSettings settings = row_settings(n, seed, causal, threads);
  const EntrywiseError e =
      row_errors(n, sigma, s, trial, settings, {.spectral = false, .entrywise = true}).entrywise;
  py::dict d;
  d["max_error"] = e.max_error;
  d["inf_error"] = e.inf_error;
  d["largest_block"] = e.largest_block;
  return d;
}

std::int64_t b_max_binding(std::int64_t n, double sigma, std::int64_t s, std::uint64_t seed,
                           std::uint64_t trial) {
  check_block_size_length(n);
  py::gil_scoped_release release;
  return b_max(draw_hashes(seed, trial, s, sigma), n);
}

void bind_spectral_error(py::module_& m) {
  const SpectralErrorOptions defaults{};
  m.def("spectral_error", &spectral_error_binding, py::arg("n"), py::arg("sigma"), py::arg("s"),
        py::arg("seed") = 0, py::arg("trial") = 0, py::arg("causal") = false,
        py::arg("tol") = defaults.rel_tol, py::arg("max_iterations") = defaults.max_iterations,
        py::arg("starts") = defaults.starts, py::arg("upper_q") = defaults.upper_q,
        py::arg("upper_width") = defaults.upper_width, py::arg("threads") = 1,
        R"doc(Spectral-norm error ||M~ - L*||_2 (causal: ||T ⊙ (M~ - L*)||_2).

M~ is the mean of the masks of draw_hashes(seed, trial, s, sigma), L* the ALiBi
kernel exp(-|i-j|/sigma). Lanczos with `starts` random starts keyed by (seed,
trial), relative accuracy `tol`, at most `max_iterations` steps, certified
upper end with probability >= 1 - upper_q, waited for until upper/lower - 1 <=
upper_width: the options and defaults of `poslsh convergence` (--spectral-tol,
--max-lanczos, --lanczos-starts, --upper-q, --upper-width), so the result
equals its row for (n, sigma, s, seed, trial) bit for bit. threads (0: all
hardware threads) runs the starts on threads of their own from n = 2^16; the
result is the same bits for any value.

Returns a dict: value (the norm; NaN unless status == 'ok'), lower (a lower
bound), upper (certified upper end), accuracy (estimated relative accuracy),
iterations (Lanczos steps), matvecs (operator products), status ('ok' or
'not_converged'). Requires 1 <= n < 2^32.)doc");
}

}  // namespace

void bind_errors(py::module_& m) {
  bind_spectral_error(m);

  m.def("max_error", &max_error_binding, py::arg("n"), py::arg("sigma"), py::arg("s"),
        py::arg("seed") = 0, py::arg("trial") = 0, py::arg("causal") = false,
        py::arg("threads") = 1,
        R"doc(Entrywise errors of M~ (hashes draw_hashes(seed, trial, s, sigma)).

Returns a dict: max_error = max |E[i,j]|, inf_error = max_i sum_j |E[i,j]|
(E = M~ - L*, causal: T ⊙ (M~ - L*)), largest_block = the largest block over
the s hashes: the max_error, inf_error and b_max columns of `poslsh
convergence` for (n, sigma, s, seed, trial). Exact, O(b_max n + n s), no n x n
matrix; threads (0: all hardware threads; two are used) gives the same bits
for any value. Requires 1 <= n < 2^32.)doc");

  m.def("b_max", &b_max_binding, py::arg("n"), py::arg("sigma"), py::arg("s"), py::arg("seed") = 0,
        py::arg("trial") = 0,
        R"doc(The largest block over the s hashes of draw_hashes(seed, trial, s, sigma) on [0, n).

Equals the b_max column of `poslsh blocksize` and of `poslsh convergence` for
(n, sigma, s, seed, trial). Computed without visiting every block: n may be up
to 2^50.)doc");
}

}  // namespace poslsh::python
