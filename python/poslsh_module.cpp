// The Python module `poslsh`: poslsh::core on numpy arrays (pybind11).
//
// Every function computes exactly what the CLI computes for the same
// arguments (same hashes, same Lanczos starts, same attention kernels), so a
// Python result equals the corresponding CSV cell bit for bit. Arguments are
// checked before any work, with the CLI's message for the same mistake where
// the CLI has one, naming the Python argument instead of the flag ("sigma must
// be ...", not "--sigma must be ..."; tests/python/test_poslsh.py compares
// them). The core checks its own arguments: its poslsh::ArgumentError becomes
// a ValueError naming the Python argument (python_name), any other
// std::invalid_argument (poslsh::InputError included) a ValueError as it is;
// only what the core cannot see (types, array ranks, sizes) is checked here.
// Arrays are read in place when they are C-contiguous of the computed dtype;
// the GIL is released while poslsh computes.
#include <fmt/format.h>
#include <poslsh/poslsh.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

using poslsh::Form;
using poslsh::PositionalHash;
using poslsh::RowMatrix;

// ---- argument names and checks --------------------------------------------

[[noreturn]] void value_error(const std::string& message) { throw py::value_error(message); }

// The Python parameter for a core argument named by meaning: the same
// snake_case name but for the solver's rel_tol, which spectral_error calls tol.
std::string python_name(const std::string& argument) {
  return argument == "rel_tol" ? "tol" : argument;
}

// ---- numpy helpers ---------------------------------------------------------

template <typename T>
using CArray = py::array_t<T, py::array::c_style | py::array::forcecast>;

// A 1-D float64 array (converted if it is not one already).
CArray<double> vector_arg(const py::handle& obj, const char* name) {
  auto a = CArray<double>::ensure(obj);
  if (!a) throw py::type_error(fmt::format("{} must be a sequence of numbers", name));
  if (a.ndim() != 1)
    value_error(fmt::format("{} must be a 1-D array, got {} dimensions", name, a.ndim()));
  return a;
}

template <typename T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  py::array_t<T> out(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(T));
  return out;
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
  return hashes;  // each checked by the core as MaskMean takes it
}

// ---- the functions ---------------------------------------------------------

py::tuple draw_hashes(std::uint64_t seed, std::uint64_t trial, std::int64_t s, double sigma) {
  std::vector<PositionalHash> hashes;
  {
    py::gil_scoped_release release;
    hashes = poslsh::draw_hashes(seed, trial, s, sigma);
  }
  py::array_t<double> pitch(s), shift(s);
  auto p = pitch.mutable_unchecked<1>();
  auto u = shift.mutable_unchecked<1>();
  for (std::int64_t k = 0; k < s; ++k) {
    p(k) = hashes[static_cast<std::size_t>(k)].pitch;
    u(k) = hashes[static_cast<std::size_t>(k)].shift;
  }
  return py::make_tuple(pitch, shift);
}

// The ALiBi scales 1 / m_h of Press et al.'s slopes for `heads` heads.
std::vector<double> alibi_sigmas(int heads) { return poslsh::alibi_head_sigmas(heads); }

py::array_t<std::int64_t> block_starts(double pitch, double shift, std::int64_t n) {
  std::vector<std::int64_t> starts;
  {
    py::gil_scoped_release release;
    starts = poslsh::block_starts(PositionalHash{pitch, shift}, n);
  }
  return to_numpy(starts);
}

py::array_t<double> mask_mean_matvec(const py::object& pitch, const py::object& shift,
                                     std::int64_t n, const py::object& x_obj, bool causal) {
  const auto hashes = hashes_arg(pitch, shift);
  const auto x = vector_arg(x_obj, "x");
  if (x.size() != n) value_error(fmt::format("x must have n = {} entries, got {}", n, x.size()));
  py::array_t<double> y(n);
  double* out = y.mutable_data();
  {
    py::gil_scoped_release release;
    const poslsh::MaskMean mask(n, hashes, causal ? Form::kCausal : Form::kSymmetric);
    mask.perform_op(x.data(), out);
  }
  return y;
}

py::dict spectral_error(std::int64_t n, double sigma, std::int64_t s, std::uint64_t seed,
                        std::uint64_t trial, bool causal, double tol, std::int64_t max_iterations,
                        int starts, double upper_q, double upper_width, int threads) {
  poslsh::check_mask_length(n);  // before the mask is built
  poslsh::SpectralErrorOptions options;
  options.rel_tol = tol;
  options.max_iterations = max_iterations;
  options.seed = seed;
  options.trial = trial;
  options.starts = starts;
  options.upper_q = upper_q;
  options.upper_width = upper_width;
  options.threads = poslsh::resolve_threads(threads);
  // Before the operator is built, which at large n takes a while.
  poslsh::validate_spectral_error_options(options);
  poslsh::SpectralErrorResult r;
  {
    py::gil_scoped_release release;
    // As experiments/convergence.cpp's convergence_row: the hashes of (seed,
    // trial) and Lanczos starts keyed by the same (seed, trial).
    const auto hashes = poslsh::draw_hashes(seed, trial, s, sigma);
    const poslsh::ErrorOperator error(n, hashes, sigma, causal ? Form::kCausal : Form::kSymmetric);
    r = poslsh::spectral_error(error, options);
  }
  py::dict d;
  d["value"] = r.value;
  d["lower"] = r.lower;
  d["upper"] = r.upper;
  d["accuracy"] = r.accuracy;
  d["iterations"] = r.iterations;
  d["matvecs"] = r.matvecs;
  d["status"] = std::string(poslsh::to_string(r.status));
  return d;
}

py::dict max_error(std::int64_t n, double sigma, std::int64_t s, std::uint64_t seed,
                   std::uint64_t trial, bool causal, int threads) {
  poslsh::check_mask_length(n);  // before the mask is built
  const int used_threads = poslsh::resolve_threads(threads);
  poslsh::EntrywiseError e;
  {
    py::gil_scoped_release release;
    const poslsh::MaskMean mask(n, poslsh::draw_hashes(seed, trial, s, sigma),
                                causal ? Form::kCausal : Form::kSymmetric);
    e = poslsh::entrywise_error(mask, sigma, used_threads);
  }
  py::dict d;
  d["max_error"] = e.max_error;
  d["inf_error"] = e.inf_error;
  d["largest_block"] = e.largest_block;
  return d;
}

std::int64_t b_max(std::int64_t n, double sigma, std::int64_t s, std::uint64_t seed,
                   std::uint64_t trial) {
  poslsh::check_block_size_length(n);
  py::gil_scoped_release release;
  return poslsh::b_max(poslsh::draw_hashes(seed, trial, s, sigma), n);
}

// ---- attention ---------------------------------------------------------------

// q, k or v as read: its array (C order, the computed dtype), heads (0 for a
// 2-D array), n and d.
template <typename T>
struct Operand {
  CArray<T> a;
  py::ssize_t heads = 0, n = 0, d = 0;
  const T* head(py::ssize_t h) const { return a.data() + (heads > 1 ? h : 0) * n * d; }
};

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

// sigma: a number (every head) or a sequence with one scale per head.
struct Sigmas {
  std::vector<double> values;
  bool scalar = true;
};
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

struct Problem {
  py::ssize_t heads = 0;      // 0: 2-D inputs, a 2-D output
  std::vector<double> sigma;  // one per head (max(heads, 1) entries)
  py::ssize_t n = 0, d = 0, dv = 0;
};

template <typename T>
Problem check_problem(const Operand<T>& q, const Operand<T>& k, const Operand<T>& v,
                      Sigmas sigmas) {
  Problem p;
  const Operand<T>* ops[] = {&q, &k, &v};
  const char* names[] = {"q", "k", "v"};
  // As `poslsh attention --qkv`: H is the largest head count; an input of one
  // head, (n, d) or (1, n, d), is shared by every head; 3-D inputs give a 3-D output.
  for (int t = 0; t < 3; ++t) p.heads = std::max(p.heads, ops[t]->heads);
  for (int t = 0; t < 3; ++t)
    if (ops[t]->heads > 1 && ops[t]->heads != p.heads)
      value_error(fmt::format("{} has {} heads but another input has {}", names[t], ops[t]->heads,
                              p.heads));
  // The library's shape checks and messages (n >= 1, equal n, equal d of q and k, d >= 1).
  poslsh::validate_attention_shapes(q.n, q.d, k.n, k.d, v.n, v.d);
  p.n = q.n;
  p.d = q.d;
  p.dv = v.d;
  const auto scales = static_cast<py::ssize_t>(sigmas.values.size());
  if (p.heads == 0) {
    if (!sigmas.scalar)
      value_error(fmt::format(
          "sigma: 2-D q, k, v take one scale (a number); give (H, n, d) arrays for {} heads",
          scales));
  } else if (sigmas.scalar) {
    sigmas.values.assign(static_cast<std::size_t>(p.heads), sigmas.values.front());
  } else if (scales != p.heads) {
    value_error(fmt::format("the inputs have {} heads, so give {} scales, got {}", p.heads, p.heads,
                            scales));
  }
  p.sigma = std::move(sigmas.values);
  return p;
}

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

template <typename T>
py::array attention(const py::object& q_obj, const py::object& k_obj, const py::object& v_obj,
                    const py::object& sigma_obj, bool causal, const std::optional<double>& scale,
                    int threads, const std::optional<std::int64_t>& s, std::uint64_t seed,
                    std::uint64_t trial, bool independent_heads) {
  const auto q = operand<T>(q_obj, "q");
  const auto k = operand<T>(k_obj, "k");
  const auto v = operand<T>(v_obj, "v");
  Sigmas sigmas = sigma_arg(sigma_obj);
  const Problem p = check_problem(q, k, v, std::move(sigmas));
  const auto q_scaled = scaled_q(q, scale);
  const py::ssize_t heads = std::max<py::ssize_t>(p.heads, 1);
  py::array_t<T> out =
      p.heads == 0 ? py::array_t<T>({p.n, p.dv}) : py::array_t<T>({p.heads, p.n, p.dv});
  T* out_data = out.mutable_data();
  {
    py::gil_scoped_release release;
    using Map = Eigen::Map<const RowMatrix<T>>;
    const Form form = causal ? Form::kCausal : Form::kSymmetric;
    const poslsh::AttentionOptions options{.threads = threads};
    for (py::ssize_t h = 0; h < heads; ++h) {
      const T* qh = q_scaled ? q_scaled->data() + (q.heads > 1 ? h : 0) * q.n * q.d : q.head(h);
      const Map qm(qh, p.n, p.d), km(k.head(h), p.n, p.d), vm(v.head(h), p.n, p.dv);
      const double sigma = p.sigma[static_cast<std::size_t>(h)];
      RowMatrix<T> result;
      if (s) {
        // As `poslsh attention` runs head h: the hashes of (head_seed, trial)
        // at the head's sigma (shared heads: one draw, rescaled per head).
        const auto hashes = poslsh::draw_hashes(
            poslsh::head_seed(seed, static_cast<std::size_t>(h), independent_heads), trial, *s,
            sigma);
        const poslsh::MaskMean mask(p.n, hashes, form);
        result = poslsh::lsh_attention<T>(qm, km, vm, mask, options);
      } else {
        result = poslsh::exact_alibi_attention<T>(qm, km, vm, sigma, form, options);
      }
      std::memcpy(out_data + h * p.n * p.dv, result.data(),
                  static_cast<std::size_t>(p.n * p.dv) * sizeof(T));
    }
  }
  return out;
}

// float32 when q, k and v are all float32 (as numpy.asarray reads them: numpy
// arrays, CPU torch tensors), float64 otherwise.
bool all_float32(const py::object& q, const py::object& k, const py::object& v) {
  for (const py::object* o : {&q, &k, &v}) {
    const py::array a = py::array::ensure(*o);
    if (!a || !py::isinstance<py::array_t<float>>(a)) return false;
  }
  return true;
}

py::array exact_attention(const py::object& q, const py::object& k, const py::object& v,
                          const py::object& sigma, bool causal, std::optional<double> scale,
                          int threads) {
  if (all_float32(q, k, v))
    return attention<float>(q, k, v, sigma, causal, scale, threads, std::nullopt, 0, 0, false);
  return attention<double>(q, k, v, sigma, causal, scale, threads, std::nullopt, 0, 0, false);
}

py::array lsh_attention(const py::object& q, const py::object& k, const py::object& v,
                        const py::object& sigma, std::int64_t s, std::uint64_t seed,
                        std::uint64_t trial, bool causal, std::optional<double> scale,
                        bool independent_heads, int threads) {
  if (all_float32(q, k, v))
    return attention<float>(q, k, v, sigma, causal, scale, threads, s, seed, trial,
                            independent_heads);
  return attention<double>(q, k, v, sigma, causal, scale, threads, s, seed, trial,
                           independent_heads);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = R"doc(Positional LSH for ALiBi attention (poslsh::core on numpy arrays).

The hashes, errors and attention outputs equal, bit for bit, what the `poslsh`
command-line tool computes for the same arguments (seed, trial, n, sigma, s).
Bad arguments raise ValueError with the CLI's message for the same mistake,
naming the Python argument (sigma, n, s, tol, ...), not the CLI's flag.
Every function releases the GIL while it computes, so threads run in parallel.)doc";
  m.attr("__version__") = POSLSH_VERSION;

  // std::invalid_argument, and poslsh::InputError which derives from it: the
  // library's "unusable input", a ValueError in Python, with its message; an
  // ArgumentError's names the Python argument.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const poslsh::ArgumentError& e) {
      PyErr_SetString(PyExc_ValueError, e.message_for(python_name(e.argument())).c_str());
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  const poslsh::SpectralErrorOptions defaults{};

  m.def("draw_hashes", &draw_hashes, py::arg("seed"), py::arg("trial"), py::arg("s"),
        py::arg("sigma"),
        R"doc(The s positional hashes of (seed, trial) at scale sigma.

Returns (pitch, shift), two float64 arrays of length s: hash k has pitch
sigma * G_k, G_k ~ Gamma(2, 1), and shift uniform in [0, pitch); position i is
in bin floor((i - shift) / pitch). Exactly the hashes every `poslsh`
experiment uses for that seed and trial, and what `poslsh sample --seed SEED
--trial TRIAL --s S --sigma SIGMA` writes. Hash k does not depend on s.)doc");

  m.def("alibi_sigmas", &alibi_sigmas, py::arg("heads"),
        R"doc(The ALiBi scales sigma_h = 1 / m_h of `heads` heads, in head order.

The slopes m_h are those of Press et al.'s reference get_slopes(heads)
(2^(-8h/H) for H a power of two), exactly what `poslsh attention
--alibi-heads H` uses. Requires heads >= 1.)doc");

  m.def("block_starts", &block_starts, py::arg("pitch"), py::arg("shift"), py::arg("n"),
        R"doc(The blocks of ONE hash (scalars pitch, shift) over positions [0, n).

Returns an int64 array `starts` with starts[0] == 0 and starts[-1] == n: block
b is the positions [starts[b], starts[b+1]), i.e. the hash's 0/1 mask is
block diagonal with these blocks (what `poslsh sample --blocks` writes).
Requires n >= 1, pitch finite > 0 and 0 <= shift <= pitch.)doc");

  m.def("mask_mean_matvec", &mask_mean_matvec, py::arg("pitch"), py::arg("shift"), py::arg("n"),
        py::arg("x"), py::arg("causal") = false,
        R"doc(M~ x: the mean of the s hashes' block masks times a vector.

pitch, shift: float64 sequences of length s (e.g. from draw_hashes); x: a
vector of n entries (converted to float64). Returns M~ x as a float64 array of
length n, with M~ = (1/s) sum_k M(h_k); causal=True multiplies by M~ ⊙ T
(keys j <= i only). O(n + number of blocks), never an n x n matrix.
Requires 1 <= n < 2^32.)doc");

  m.def("spectral_error", &spectral_error, py::arg("n"), py::arg("sigma"), py::arg("s"),
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

  m.def("max_error", &max_error, py::arg("n"), py::arg("sigma"), py::arg("s"), py::arg("seed") = 0,
        py::arg("trial") = 0, py::arg("causal") = false, py::arg("threads") = 1,
        R"doc(Entrywise errors of M~ (hashes draw_hashes(seed, trial, s, sigma)).

Returns a dict: max_error = max |E[i,j]|, inf_error = max_i sum_j |E[i,j]|
(E = M~ - L*, causal: T ⊙ (M~ - L*)), largest_block = the largest block over
the s hashes: the max_error, inf_error and b_max columns of `poslsh
convergence` for (n, sigma, s, seed, trial). Exact, O(b_max n + n s), no n x n
matrix; threads (0: all hardware threads; two are used) gives the same bits
for any value. Requires 1 <= n < 2^32.)doc");

  m.def("b_max", &b_max, py::arg("n"), py::arg("sigma"), py::arg("s"), py::arg("seed") = 0,
        py::arg("trial") = 0,
        R"doc(The largest block over the s hashes of draw_hashes(seed, trial, s, sigma) on [0, n).

Equals the b_max column of `poslsh blocksize` and of `poslsh convergence` for
(n, sigma, s, seed, trial). Computed without visiting every block: n may be up
to 2^50.)doc");

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

  m.def("exact_attention", &exact_attention, py::arg("q"), py::arg("k"), py::arg("v"),
        py::arg("sigma"), py::arg("causal") = false, py::arg("scale") = py::none(),
        py::arg("threads") = 1,
        (std::string(R"doc(Exact ALiBi attention softmax_j(q_i·k_j·scale - |i-j|/sigma) v_j.

Tiled with an online softmax: O(n^2 d) time, O(n d) memory, never an n x n
matrix.)doc") +
         kAttentionArrays)
            .c_str());

  m.def("lsh_attention", &lsh_attention, py::arg("q"), py::arg("k"), py::arg("v"), py::arg("sigma"),
        py::arg("s"), py::arg("seed") = 0, py::arg("trial") = 0, py::arg("causal") = false,
        py::arg("scale") = py::none(), py::arg("independent_heads") = false, py::arg("threads") = 1,
        (std::string(R"doc(Positional-LSH attention: the estimate of exact_attention from s hashes.

T~ = D~^-1 (A ⊙ M~) V with A[i,j] = exp(q_i·k_j·scale) (no positional bias)
and M~ the mean of the s hashes' block masks: for each hash, each block
attends only within itself (causal: to keys j <= i of its block); the
numerators sum_j A[i,j] v_j and denominators sum_j A[i,j] are summed over the
hashes first and divided once. E[M~] = L* = exp(-|i-j|/sigma), which is where
the ALiBi bias comes from. Head h uses draw_hashes(seed, trial, s, sigma[h])
(heads share one draw, rescaled by each sigma, as `poslsh attention` does;
independent_heads=True keys head h by its own seed, as --independent-heads).
On float64 inputs this equals what `poslsh attention --estimator lsh`
computes for the same (seed, trial, s, sigma) and Q, K, V (--qkv DIR).)doc") +
         kAttentionArrays)
            .c_str());
}
