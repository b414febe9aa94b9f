// The mean of the hashes' block masks as an operator: mask_mean_matvec.
#include <fmt/format.h>

#include <cstdint>

#include "arguments.h"
#include "bindings.h"

namespace poslsh::python {
namespace {

py::array_t<double> mask_mean_matvec_binding(const py::object& pitch, const py::object& shift,
                                             std::int64_t n, const py::object& x_obj, bool causal) {
  const auto hashes = hashes_arg(pitch, shift);
  const auto x = vector_arg(x_obj, "x");
  if (x.size() != n) value_error(fmt::format("x must have n = {} entries, got {}", n, x.size()));
  py::array_t<double> y(n);
  double* out = y.mutable_data();
  {
    py::gil_scoped_release release;
    const MaskMean mask(n, hashes, form_of(causal));
    mask.perform_op(x.data(), out);
  }
  return y;
}

}  // namespace

void bind_mask_mean(py::module_& m) {
  m.def("mask_mean_matvec", &mask_mean_matvec_binding, py::arg("pitch"), py::arg("shift"),
        py::arg("n"), py::arg("x"), py::arg("causal") = false,
        R"doc(M~ x: the mean of the s hashes' block masks times a vector.

pitch, shift: float64 sequences of length s (e.g. from draw_hashes); x: a
vector of n entries (converted to float64). Returns M~ x as a float64 array of
length n, with M~ = (1/s) sum_k M(h_k); causal=True multiplies by M~ ⊙ T
(keys j <= i only). O(n + number of blocks), never an n x n matrix.
Requires 1 <= n < 2^32.)doc");
}

}  // namespace poslsh::python
