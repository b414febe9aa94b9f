// Kernels beyond ALiBi (poslsh/kernel.h, docs/MATH.md §10): a Kernel class
// with its factories, k(t), its hashes and its pitch law; framework_distance.
#include <poslsh/kernel.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "arguments.h"
#include "bindings.h"

namespace poslsh::python {
namespace {

py::tuple kernel_hashes(const Kernel& kernel, std::uint64_t seed, std::uint64_t trial,
                        std::int64_t s) {
  std::vector<PositionalHash> hashes;
  {
    py::gil_scoped_release release;
    hashes = draw_kernel_hashes(kernel, seed, trial, s);
  }
  return hashes_to_numpy(hashes);
}

py::array_t<double> kernel_values(const Kernel& kernel, const std::vector<double>& t) {
  std::vector<double> k(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) k[i] = kernel(t[i]);
  return py::array_t<double>(static_cast<py::ssize_t>(k.size()), k.data());
}

}  // namespace

void bind_kernels(py::module_& m) {
  py::class_<Kernel>(m, "Kernel", R"doc(A relative-position kernel k(t), t = |i - j|, that random
grids represent: non-increasing and convex with k(0) = 1 (docs/MATH.md §10).
Made by the static factories, checked once (ValueError naming the parameter).)doc")
      .def_static("laplace", &Kernel::laplace, py::arg("sigma"), "exp(-t/sigma): ALiBi.")
      .def_static("triangle", &Kernel::triangle, py::arg("width"), "(1 - t/width)+: one pitch.")
      .def_static("power_law", &Kernel::power_law, py::arg("sigma"), py::arg("alpha"),
                  "(1 + t/sigma)^-alpha (KERPLE-log).")
      .def_static("stretched_exponential", &Kernel::stretched_exponential, py::arg("sigma"),
                  py::arg("beta"), "exp(-(t/sigma)^beta), 0 < beta <= 1.")
      .def_static("tabulated", &Kernel::tabulated, py::arg("values"),
                  "k(0..T) (k(0) = 1), k(T) beyond; refused unless non-increasing and convex.")
      .def_static(
          "from_bias", [](const std::vector<double>& b) { return Kernel::from_bias(b); },
          py::arg("bias"), "A learned additive bias b(0..T), read as k = exp(b - b(0)).")
      .def("__call__", &kernel_values, py::arg("t"), "k at each t (a float64 array).")
      .def("hashes", &kernel_hashes, py::arg("seed"), py::arg("trial"), py::arg("s"),
           "(pitch, shift) of the kernel's hashes 0..s-1 of (seed, trial); laplace's are "
           "draw_hashes' bit for bit.")
      .def_property_readonly("family", &Kernel::family_name)
      .def_property_readonly("spec", &Kernel::spec)
      .def_property_readonly("pitch_probabilities", &Kernel::pitch_probabilities,
                             "A table's P(d), d = 1..T, then the atom at an infinite pitch.")
      .def("__repr__", [](const Kernel& k) { return "poslsh.Kernel(" + k.family_name() + ")"; });

  m.def(
      "framework_distance",
      [](const std::vector<double>& values) {
        const FrameworkDistance d = framework_distance(values);
        return py::make_tuple(d.first_offending_t, d.distance);
      },
      py::arg("values"),
      R"doc((first_offending_t, distance) of a table k(0..T): the first t at which it rises or
is not convex (-1: none), and its sup-norm distance to the nearest
non-increasing convex sequence (0 inside the framework).)doc");
}

}  // namespace poslsh::python
