// Python arguments into poslsh's values, in one place for every binding:
// numpy conversion (arrays are read in place when they are C-contiguous of the
// computed dtype, converted otherwise), the checks only the module can make
// (types, ranks, sizes, lengths that must agree), and the translation of the
// core's errors into Python's.
//
// The core checks its own arguments: its poslsh::ArgumentError becomes a
// ValueError naming the Python argument (python_name), any other
// poslsh::InputError a ValueError as it is. A broken invariant (a
// std::logic_error from the core: a bug, not the caller's mistake) is left to
// pybind11, which raises it as RuntimeError.
// The messages here are the CLI's for the same mistake where the CLI has one,
// naming the Python argument instead of the flag ("sigma must be ...", not
// "--sigma must be ..."; tests/python/test_poslsh.py compares them).
#pragma once

#include <poslsh/poslsh.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace poslsh::python {

namespace py = pybind11;

// ---- errors ------------------------------------------------------------------

[[noreturn]] void value_error(const std::string& message);

// The Python parameter for a core argument named by meaning: the same
// snake_case name but for the solver's rel_tol, which spectral_error calls tol.
std::string python_name(const std::string& argument);

// poslsh::ArgumentError: ValueError naming the Python argument; any other
// poslsh::InputError: ValueError as it is.
void register_error_translation();

// ---- scalars and vectors -------------------------------------------------------

inline Form form_of(bool causal) { return causal ? Form::kCausal : Form::kSymmetric; }

template <typename T>
using CArray = py::array_t<T, py::array::c_style | py::array::forcecast>;

// A 1-D float64 array (converted if it is not one already).
CArray<double> vector_arg(const py::handle& obj, const char* name);

template <typename T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  py::array_t<T> out(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(T));
  return out;
}

// Hashes as Python gets them: (pitch, shift), two float64 arrays of their length.
py::tuple hashes_to_numpy(const std::vector<PositionalHash>& hashes);

// s >= 1 hashes from equally long pitch and shift sequences (each hash is
// checked by the core as MaskMean takes it).
std::vector<PositionalHash> hashes_arg(const py::handle& pitch_obj, const py::handle& shift_obj);

// Hashes for attention: pitch and shift of shape (s,), one row of s >= 1
// hashes, or (H, s), H rows (one per head); each hash is checked by the core
// as MaskMean takes it.
std::vector<std::vector<PositionalHash>> hash_rows_arg(const py::handle& pitch_obj,
                                                       const py::handle& shift_obj);

// ---- attention operands --------------------------------------------------------

// q, k or v as read: its array (C order, the computed dtype), heads (0 for a
// 2-D array), n and d.
template <typename T>
struct Operand {
  CArray<T> a;
  py::ssize_t heads = 0, n = 0, d = 0;
  const T* head(py::ssize_t h) const { return a.data() + (heads > 1 ? h : 0) * n * d; }
};

// An (n, d) or (H, n, d) array of H >= 1 heads (instantiated for float and double).
template <typename T>
Operand<T> operand(const py::handle& obj, const char* name);

// sigma: a number (every head) or a sequence with one scale per head.
struct Sigmas {
  std::vector<double> values;
  bool scalar = true;
};
Sigmas sigma_arg(const py::object& obj);

// The shapes of one attention call, checked against each other.
struct Problem {
  py::ssize_t heads = 0;      // 0: 2-D inputs, a 2-D output
  std::vector<double> sigma;  // one per head (max(heads, 1) entries)
  py::ssize_t n = 0, d = 0, dv = 0;
};

// As `poslsh attention --qkv`: H is the largest head count; an input of one
// head, (n, d) or (1, n, d), is shared by every head; 3-D inputs give a 3-D
// output; one scale for every head, or H of them.
template <typename T>
Problem check_problem(const Operand<T>& q, const Operand<T>& k, const Operand<T>& v, Sigmas sigmas);

// float32 when q, k and v are all float32 (as numpy.asarray reads them: numpy
// arrays, CPU torch tensors), float64 otherwise.
bool all_float32(const py::object& q, const py::object& k, const py::object& v);

}  // namespace poslsh::python
