#include "arguments.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <utility>

namespace poslsh::python {

// ---- errors ------------------------------------------------------------------

void value_error(const std::string& message) { throw py::value_error(message); }

std::string python_name(const std::string& argument) {
  return argument == "rel_tol" ? "tol" : argument;
}

void register_error_translation() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ArgumentError& e) {
      PyErr_SetString(PyExc_ValueError, e.message_for(python_name(e.argument())).c_str());
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

// ---- scalars and vectors -------------------------------------------------------

CArray<double> vector_arg(const py::handle& obj, const char* name) {
  auto a = CArray<double>::ensure(obj);
  if (!a) throw py::type_error(fmt::format("{} must be a sequence of numbers", name));
  if (a.ndim() != 1)
    value_error(fmt::format("{} must be a 1-D array, got {} dimensions", name, a.ndim()));
  return a;
}

std::vector<PositionalHash> hashes_arg(const py::handle& pitch_obj, const py::handle& shift_obj) {
  const auto pitch = vector_arg(pitch_obj, "pitch");
  const auto shift = vector_arg(shift_obj, "shift");
  if (pitch.size() != shift.size())
    value_error(fmt::format("pitch and shift must have the same length s, got {} and {}",
                            pitch.size(), shift.size()));
  if (pitch.size() < 1) value_error("pitch and shift must hold s >= 1 hashes (got 0)");
  std::vector<PositionalHash> hashes;
  hashes.reserve(static_cast<std::size_t>(pitch.size()));
  for (py::ssize_t k = 0; k < pitch.size(); ++k) hashes.push_back({pitch.at(k), shift.at(k)});
  return hashes;
}

std::vector<std::vector<PositionalHash>> hash_rows_arg(const py::handle& pitch_obj,
                                                       const py::handle& shift_obj) {
  const auto pitch = CArray<double>::ensure(pitch_obj);
  const auto shift = CArray<double>::ensure(shift_obj);
  if (!pitch) throw py::type_error("pitch must be an array of numbers");
  if (!shift) throw py::type_error("shift must be an array of numbers");
  if (pitch.ndim() == 1) return {hashes_arg(pitch, shift)};
  if (pitch.ndim() != 2)
    value_error(fmt::format("pitch: expected shape (s,) or (H, s), got rank {}", pitch.ndim()));
  if (shift.ndim() != 2 || shift.shape(0) != pitch.shape(0) || shift.shape(1) != pitch.shape(1))
    value_error(
        fmt::format("shift must have the shape of pitch ({}, {})", pitch.shape(0), pitch.shape(1)));
  if (pitch.shape(0) < 1 || pitch.shape(1) < 1)
    value_error(fmt::format("pitch and shift must hold H >= 1 rows of s >= 1 hashes (got ({}, {}))",
                            pitch.shape(0), pitch.shape(1)));
  std::vector<std::vector<PositionalHash>> rows(static_cast<std::size_t>(pitch.shape(0)));
  for (py::ssize_t h = 0; h < pitch.shape(0); ++h)
    for (py::ssize_t k = 0; k < pitch.shape(1); ++k)
      rows[static_cast<std::size_t>(h)].push_back({pitch.at(h, k), shift.at(h, k)});
  return rows;
}

// ---- attention operands --------------------------------------------------------

template <typename T>
Operand<T> operand(const py::handle& obj, const char* name) {
  auto a = CArray<T>::ensure(obj);
  if (!a) throw py::type_error(fmt::format("{} must be an array of numbers", name));
  Operand<T> o;
  if (a.ndim() == 2) {
    o.n = a.shape(0);
    o.d = a.shape(1);
  } else if (a.ndim() == 3) {
    o.heads = a.shape(0);
    o.n = a.shape(1);
    o.d = a.shape(2);
    if (o.heads < 1) value_error(fmt::format("{} has 0 heads; it needs at least one", name));
  } else {
    value_error(fmt::format("{}: expected shape (n, d) or (H, n, d), got rank {}", name, a.ndim()));
  }
  o.a = std::move(a);
  return o;
}
template Operand<float> operand<float>(const py::handle&, const char*);
template Operand<double> operand<double>(const py::handle&, const char*);

Sigmas sigma_arg(const py::object& obj) {
  auto a = CArray<double>::ensure(obj);
  if (!a) throw py::type_error("sigma must be a number or a sequence of numbers");
  if (a.ndim() > 1)
    value_error(
        fmt::format("sigma must be a number or a 1-D sequence, got {} dimensions", a.ndim()));
  Sigmas s{std::vector<double>(a.data(), a.data() + a.size()), a.ndim() == 0};
  if (s.values.empty())
    value_error(
        "sigma must be a scale > 0 or a list of them, one per head (e.g. poslsh.alibi_sigmas(H))");
  return s;  // each scale checked by the core as its head runs
}

namespace {

// H: the largest head count of q, k and v (0 when all are 2-D); an input of
// more than one head must have H.
template <typename T>
py::ssize_t head_count(const Operand<T>& q, const Operand<T>& k, const Operand<T>& v) {
  const Operand<T>* ops[] = {&q, &k, &v};
  const char* names[] = {"q", "k", "v"};
  py::ssize_t heads = 0;
  for (int t = 0; t < 3; ++t) heads = std::max(heads, ops[t]->heads);
  for (int t = 0; t < 3; ++t)
    if (ops[t]->heads > 1 && ops[t]->heads != heads)
      value_error(
          fmt::format("{} has {} heads but another input has {}", names[t], ops[t]->heads, heads));
  return heads;
}

// One scale per head (max(heads, 1) of them): a number is every head's.
std::vector<double> per_head_sigmas(Sigmas sigmas, py::ssize_t heads) {
  const auto scales = static_cast<py::ssize_t>(sigmas.values.size());
  if (heads == 0) {
    if (!sigmas.scalar)
      value_error(fmt::format(
          "sigma: 2-D q, k, v take one scale (a number); give (H, n, d) arrays for {} heads",
          scales));
  } else if (sigmas.scalar) {
    sigmas.values.assign(static_cast<std::size_t>(heads), sigmas.values.front());
  } else if (scales != heads) {
    value_error(
        fmt::format("the inputs have {} heads, so give {} scales, got {}", heads, heads, scales));
  }
  return std::move(sigmas.values);
}

}  // namespace

template <typename T>
Problem check_problem(const Operand<T>& q, const Operand<T>& k, const Operand<T>& v,
                      Sigmas sigmas) {
  Problem p;
  p.heads = head_count(q, k, v);
  // The library's shape checks and messages (n >= 1, equal n, equal d of q and k, d >= 1).
  validate_attention_shapes(q.n, q.d, k.n, k.d, v.n, v.d);
  p.n = q.n;
  p.d = q.d;
  p.dv = v.d;
  p.sigma = per_head_sigmas(std::move(sigmas), p.heads);
  return p;
}
template Problem check_problem<float>(const Operand<float>&, const Operand<float>&,
                                      const Operand<float>&, Sigmas);
template Problem check_problem<double>(const Operand<double>&, const Operand<double>&,
                                       const Operand<double>&, Sigmas);

bool all_float32(const py::object& q, const py::object& k, const py::object& v) {
  for (const py::object* o : {&q, &k, &v}) {
    const py::array a = py::array::ensure(*o);
    if (!a || !py::isinstance<py::array_t<float>>(a)) return false;
  }
  return true;
}

py::tuple hashes_to_numpy(const std::vector<PositionalHash>& hashes) {
  const auto s = static_cast<py::ssize_t>(hashes.size());
  py::array_t<double> pitch(s), shift(s);
  auto p = pitch.mutable_unchecked<1>();
  auto u = shift.mutable_unchecked<1>();
  for (py::ssize_t k = 0; k < s; ++k) {
    p(k) = hashes[static_cast<std::size_t>(k)].pitch;
    u(k) = hashes[static_cast<std::size_t>(k)].shift;
  }
  return py::make_tuple(pitch, shift);
}

}  // namespace poslsh::python
