// The hashes and their blocks: draw_hashes, alibi_sigmas, block_starts.
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "arguments.h"
#include "bindings.h"

namespace poslsh::python {
namespace {

py::tuple draw_hashes_binding(std::uint64_t seed, std::uint64_t trial, std::int64_t s,
                              double sigma) {
  std::vector<PositionalHash> hashes;
  {
    py::gil_scoped_release release;
    hashes = draw_hashes(seed, trial, s, sigma);
  }
  return hashes_to_numpy(hashes);
}

// The ALiBi scales 1 / m_h of Press et al.'s slopes for `heads` heads.
std::vector<double> alibi_sigmas_binding(int heads) { return alibi_head_sigmas(heads); }

py::array_t<std::int64_t> block_starts_binding(double pitch, double shift, std::int64_t n) {
  std::vector<std::int64_t> starts;
  {
    py::gil_scoped_release release;
    starts = block_starts(PositionalHash{pitch, shift}, n);
  }
  return to_numpy(starts);
}

}  // namespace

void bind_sampling(py::module_& m) {
  m.def("draw_hashes", &draw_hashes_binding, py::arg("seed"), py::arg("trial"), py::arg("s"),
        py::arg("sigma"),
        R"doc(The s positional hashes of (seed, trial) at scale sigma.

Returns (pitch, shift), two float64 arrays of length s: hash k has pitch
sigma * G_k, G_k ~ Gamma(2, 1), and shift uniform in [0, pitch); position i is
in bin floor((i - shift) / pitch). Exactly the hashes every `poslsh`
experiment uses for that seed and trial, and what `poslsh sample --seed SEED
--trial TRIAL --s S --sigma SIGMA` writes. Hash k does not depend on s.)doc");

  m.def("alibi_sigmas", &alibi_sigmas_binding, py::arg("heads"),
        R"doc(The ALiBi scales sigma_h = 1 / m_h of `heads` heads, in head order.

The slopes m_h are those of Press et al.'s reference get_slopes(heads)
(2^(-8h/H) for H a power of two), exactly what `poslsh attention
--alibi-heads H` uses. Requires heads >= 1.)doc");

  m.def("block_starts", &block_starts_binding, py::arg("pitch"), py::arg("shift"), py::arg("n"),
        R"doc(The blocks of ONE hash (scalars pitch, shift) over positions [0, n).

Returns an int64 array `starts` with starts[0] == 0 and starts[-1] == n: block
b is the positions [starts[b], starts[b+1]), i.e. the hash's 0/1 mask is
block diagonal with these blocks (what `poslsh sample --blocks` writes).
Requires n >= 1, pitch finite > 0 and 0 <= shift <= pitch.)doc");
}

}  // namespace poslsh::python
