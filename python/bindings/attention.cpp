// ALiBi attention on numpy arrays: exact_attention and lsh_attention, per head,
// in float32 or float64 as the inputs are.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "arguments.h"
#include "bindings.h"

namespace poslsh::python {
namespace {

// The library divides q·k by sqrt(d) itself; another scale is applied by
// multiplying q by scale·sqrt(d) (a scaled copy of q).
template <typename T>
std::optional<RowMatrix<T>> scaled_q(const Operand<T>& q, const std::optional<double>& scale) {
  if (!scale) return std::nullopt;
  if (!std::isfinite(*scale))
    value_error(fmt::format("scale must be a finite number (got {})", *scale));
  const T factor = static_cast<T>(*scale * std::sqrt(static_cast<double>(q.d)));
  const Eigen::Index rows = std::max<py::ssize_t>(q.heads, 1) * q.n;
  return RowMatrix<T>(Eigen::Map<const RowMatrix<T>>(q.a.data(), rows, q.d) * factor);
}

// The estimator's hashes: drawn when s is given, or the caller's own (one
// row for every head, or one per head); neither: exact attention.
struct LshDraw {
  std::optional<std::int64_t> s;
  std::uint64_t seed = 0, trial = 0;
  bool independent_heads = false;
  std::vector<std::vector<PositionalHash>> given;
};

// Head h of one call: exact attention, or the estimate from the hashes of
// (head_seed, trial) at the head's sigma, as `poslsh attention` runs head h
// (shared heads: one draw, rescaled per head), or from the given hashes.
template <typename T>
RowMatrix<T> head_attention(const Eigen::Map<const RowMatrix<T>>& q,
                            const Eigen::Map<const RowMatrix<T>>& k,
                            const Eigen::Map<const RowMatrix<T>>& v, double sigma, py::ssize_t h,
                            Form form, const LshDraw& draw, const AttentionOptions& options) {
  if (!draw.given.empty()) {
    const MaskMean mask(q.rows(),
                        draw.given[draw.given.size() == 1 ? 0 : static_cast<std::size_t>(h)], form);
    return lsh_attention<T>(q, k, v, mask, options);
  }
  if (!draw.s) return exact_alibi_attention<T>(q, k, v, sigma, form, options);
  const auto hashes =
      draw_hashes(head_seed(draw.seed, static_cast<std::size_t>(h), draw.independent_heads),
                  draw.trial, *draw.s, sigma);
  const MaskMean mask(q.rows(), hashes, form);
  return lsh_attention<T>(q, k, v, mask, options);
}

template <typename T>
py::array attention_of(const py::object& q_obj, const py::object& k_obj, const py::object& v_obj,
                       const py::object& sigma_obj, bool causal, const std::optional<double>& scale,
                       int threads, const LshDraw& draw) {
  const auto q = operand<T>(q_obj, "q");
  const auto k = operand<T>(k_obj, "k");
  const auto v = operand<T>(v_obj, "v");
  // Given hashes carry their scale: the estimate reads no sigma (one
  // placeholder scale stands for every head).
  const Problem p =
      check_problem(q, k, v, draw.given.empty() ? sigma_arg(sigma_obj) : Sigmas{{1.0}});
  const py::ssize_t heads = std::max<py::ssize_t>(p.heads, 1);
  if (draw.given.size() > 1 && static_cast<py::ssize_t>(draw.given.size()) != heads)
    value_error(
        fmt::format("pitch and shift hold {} rows of hashes (one per head) but the inputs "
                    "have {} head{}",
                    draw.given.size(), heads, heads == 1 ? "" : "s"));
  const auto q_scaled = scaled_q(q, scale);
  py::array_t<T> out =
      p.heads == 0 ? py::array_t<T>({p.n, p.dv}) : py::array_t<T>({p.heads, p.n, p.dv});
  T* out_data = out.mutable_data();
  {
    py::gil_scoped_release release;
    using Map = Eigen::Map<const RowMatrix<T>>;
    const AttentionOptions options{.threads = threads};
    for (py::ssize_t h = 0; h < heads; ++h) {
      const T* qh = q_scaled ? q_scaled->data() + (q.heads > 1 ? h : 0) * q.n * q.d : q.head(h);
      const Map qm(qh, p.n, p.d), km(k.head(h), p.n, p.d), vm(v.head(h), p.n, p.dv);
      const RowMatrix<T> result = head_attention<T>(
          qm, km, vm, p.sigma[static_cast<std::size_t>(h)], h, form_of(causal), draw, options);
      std::memcpy(out_data + h * p.n * p.dv, result.data(),
                  static_cast<std::size_t>(p.n * p.dv) * sizeof(T));
    }
  }
  return out;
}

py::array exact_attention_binding(const py::object& q, const py::object& k, const py::object& v,
                                  const py::object& sigma, bool causal, std::optional<double> scale,
                                  int threads) {
  if (all_float32(q, k, v)) return attention_of<float>(q, k, v, sigma, causal, scale, threads, {});
  return attention_of<double>(q, k, v, sigma, causal, scale, threads, {});
}

// The estimator's hashes from the arguments: s (with sigma, seed, trial,
// independent_heads) draws them, pitch and shift give them; one way only.
LshDraw lsh_draw_arg(const py::object& sigma, std::optional<std::int64_t> s,
                     std::optional<std::uint64_t> seed, std::optional<std::uint64_t> trial,
                     bool independent_heads, const py::object& pitch, const py::object& shift) {
  if (pitch.is_none() != shift.is_none())
    value_error("pitch and shift go together: give both (your own hashes) or neither");
  if (pitch.is_none()) {
    if (!s) value_error("s: give the number of hashes to draw, or your own as pitch and shift");
    if (sigma.is_none()) value_error("sigma: the hashes drawn for s need the ALiBi scale");
    return {s, seed.value_or(0), trial.value_or(0), independent_heads, {}};
  }
  if (s || seed || trial || independent_heads)
    value_error(
        "s, seed, trial and independent_heads draw hashes: leave them out when giving "
        "pitch and shift");
  if (!sigma.is_none())
    value_error("sigma: leave it out when giving pitch and shift (the hashes carry their scale)");
  return {std::nullopt, 0, 0, false, hash_rows_arg(pitch, shift)};
}

py::array lsh_attention_binding(const py::object& q, const py::object& k, const py::object& v,
                                const py::object& sigma, std::optional<std::int64_t> s,
                                std::optional<std::uint64_t> seed,
                                std::optional<std::uint64_t> trial, bool causal,
                                std::optional<double> scale, bool independent_heads, int threads,
                                const py::object& pitch, const py::object& shift) {
  const LshDraw draw = lsh_draw_arg(sigma, s, seed, trial, independent_heads, pitch, shift);
  if (all_float32(q, k, v))
    return attention_of<float>(q, k, v, sigma, causal, scale, threads, draw);
  return attention_of<double>(q, k, v, sigma, causal, scale, threads, draw);
}

constexpr const char* kAttentionArrays = R"doc(

q, k: arrays (n, d); v: (n, dv); or stacks (H, n, d) / (H, n, dv) of H heads
(an input of one head, (n, d) or (1, n, d), is shared by every head). Computed and returned in
float32 when q, k and v are all float32 arrays (numpy, or anything
numpy.asarray reads as such, e.g. CPU torch tensors), else in float64. C-order
arrays of that dtype are read in place; anything else (Fortran order, strided
views, other dtypes, nested lists) is converted first (numpy forcecast).
The output is (n, dv) for 2-D inputs, (H, n, dv) when any input is 3-D.
sigma: the ALiBi scale 1/slope, a number (every head) or, for 3-D inputs, a
sequence of H scales (head h uses sigma[h], e.g. Press et al.'s slopes).
scale: the logit scale, default 1/sqrt(d). poslsh always divides q·k by
sqrt(d); another scale is applied by multiplying q by scale·sqrt(d) first (a
scaled copy of q, so its float rounding differs from the default's by an ulp).
causal: keys j <= i only. threads: worker threads inside each head (0: all
cores); the result does not depend on it, bit for bit.)doc";

}  // namespace

void bind_attention(py::module_& m) {
  m.def("exact_attention", &exact_attention_binding, py::arg("q"), py::arg("k"), py::arg("v"),
        py::arg("sigma"), py::arg("causal") = false, py::arg("scale") = py::none(),
        py::arg("threads") = 1,
        (std::string(R"doc(Exact ALiBi attention softmax_j(q_i·k_j·scale - |i-j|/sigma) v_j.

Tiled with an online softmax: O(n^2 d) time, O(n d) memory, never an n x n
matrix.)doc") +
         kAttentionArrays)
            .c_str());

  m.def("lsh_attention", &lsh_attention_binding, py::arg("q"), py::arg("k"), py::arg("v"),
        py::arg("sigma") = py::none(), py::arg("s") = py::none(), py::arg("seed") = py::none(),
        py::arg("trial") = py::none(), py::arg("causal") = false, py::arg("scale") = py::none(),
        py::arg("independent_heads") = false, py::arg("threads") = 1, py::kw_only(),
        py::arg("pitch") = py::none(), py::arg("shift") = py::none(),
        (std::string(R"doc(Positional-LSH attention: the estimate of exact_attention from s hashes.

T~ = D~^-1 (A ⊙ M~) V with A[i,j] = exp(q_i·k_j·scale) (no positional bias)
and M~ the mean of the s hashes' block masks: for each hash, each block
attends only within itself (causal: to keys j <= i of its block); the
numerators sum_j A[i,j] v_j and denominators sum_j A[i,j] are summed over the
hashes first and divided once. E[M~] = L* = exp(-|i-j|/sigma), which is where
the ALiBi bias comes from. Head h uses draw_hashes(seed, trial, s, sigma[h])
(heads share one draw, rescaled by each sigma, as `poslsh attention` does;
independent_heads=True keys head h by its own seed, as --independent-heads;
seed and trial default to 0). On float64 inputs this equals what `poslsh
attention --estimator lsh` computes for the same (seed, trial, s, sigma) and
Q, K, V (--qkv DIR).

Your own hashes instead (keywords pitch and shift, and no sigma, s, seed,
trial or independent_heads): pitch and shift of shape (s,), every head using
those s hashes, or (H, s), head h using row h; bin(i) = floor((i - shift) /
pitch), pitch finite > 0 and 0 <= shift <= pitch. So a kernel of your own can
be compared with this one on the same draws (docs/python-verify.md).)doc") +
         kAttentionArrays)
            .c_str());
}

}  // namespace poslsh::python
