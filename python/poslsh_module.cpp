// The Python module `poslsh._core`: poslsh::core on numpy arrays (pybind11).
//
// Every function computes exactly what the CLI computes for the same
// arguments (same hashes, same Lanczos starts, same attention kernels), so a
// Python result equals the corresponding CSV cell bit for bit; the GIL is
// released while poslsh computes. The bindings live by concept in
// python/bindings/ (sampling, mask_mean, errors, attention, verification),
// the conversion and checking of their arguments in one place,
// python/bindings/arguments.h.
#include <pybind11/pybind11.h>

#include "bindings/arguments.h"
#include "bindings/bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = R"doc(Positional LSH for ALiBi attention (poslsh::core on numpy arrays).

The hashes, errors and attention outputs equal, bit for bit, what the `poslsh`
command-line tool computes for the same arguments (seed, trial, n, sigma, s),
and verify_hashes / verify_blocks return the lines `poslsh verify` prints for
the same samples.
Bad arguments raise ValueError with the CLI's message for the same mistake,
naming the Python argument (sigma, n, s, tol, ...), not the CLI's flag.
Every function releases the GIL while it computes, so threads run in parallel.)doc";
  m.attr("__version__") = POSLSH_VERSION;

  poslsh::python::register_error_translation();
  poslsh::python::bind_sampling(m);
  poslsh::python::bind_mask_mean(m);
  poslsh::python::bind_errors(m);
  poslsh::python::bind_attention(m);
  poslsh::python::bind_verification(m);
  poslsh::python::bind_kernels(m);
}
