// `poslsh verify` on arrays: verify_hashes and verify_blocks run the checks of
// experiments/verify/verification.h on a sampler's hashes or blocks in memory, the
// same function the command runs on them read from a file, and return the
// lines it prints.
#include "experiments/verify/verification.h"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "arguments.h"
#include "bindings.h"

namespace poslsh::python {
namespace {

// Positions are exact in a double up to 2^53; bins computed from a hash in
// double drift from the exact ones beyond 2^50 (as `poslsh verify` checks).
constexpr std::int64_t kMaxHashN = std::int64_t{1} << 50;
constexpr std::int64_t kMaxBlockN = std::int64_t{1} << 53;

// A 1-D array of integers (an int64 copy where it is another integer type).
CArray<std::int64_t> integer_vector_arg(const py::handle& obj, const std::string& name) {
  const py::array a = py::array::ensure(obj);
  if (!a || (a.size() > 0 && a.dtype().kind() != 'i' && a.dtype().kind() != 'u'))
    throw py::type_error(fmt::format("{} must be a sequence of integers", name));
  if (a.ndim() != 1)
    value_error(fmt::format("{} must be a 1-D array, got {} dimensions", name, a.ndim()));
  return CArray<std::int64_t>::ensure(a);
}

std::vector<std::int64_t> trial_arg(const py::object& obj) {
  if (obj.is_none()) return {};
  const auto a = integer_vector_arg(obj, "trial");
  return {a.data(), a.data() + a.size()};
}

VerifyOptions options_arg(double sigma, std::int64_t n, std::int64_t batch, int points,
                          double alpha, std::int64_t max_n) {
  const VerifyOptions o{.n = n, .sigma = sigma, .batch = batch, .points = points, .alpha = alpha};
  check_verify_options(o, max_n);
  return o;
}

// The report as `poslsh verify` prints it: one record per check line, the
// closing tally line, the header's numbers and the exit code's verdict.
py::dict report_dict(const VerifyReport& report) {
  py::list lines;
  CheckTally tally;
  for (const auto& c : report.outcomes) {
    py::dict line;
    line["name"] = c.check;
    line["verdict"] = verdict_name(c.verdict);
    line["detail"] = c.detail;
    line["text"] = outcome_line(c);
    line["remedy"] = c.remedy;
    lines.append(line);
    count_outcome(c, tally);
  }
  py::dict out;
  out["lines"] = lines;
  out["passed"] = tally.failed == 0;
  out["summary"] = tally_line(tally);
  // The families no line could decide (what `verify --strict` refuses).
  out["undecided"] = families_without_decision(tally);
  out["samples"] = report.samples;
  out["trials"] = report.trials;
  out["detectable_scale"] = report.detectable_scale;
  return out;
}

py::dict verify_hashes_binding(const py::object& pitch_obj, const py::object& shift_obj,
                               double sigma, std::int64_t n, const py::object& trial_obj,
                               std::int64_t batch, int points, double alpha) {
  const VerifyOptions o = options_arg(sigma, n, batch, points, alpha, kMaxHashN);
  const auto pitch = vector_arg(pitch_obj, "pitch");
  const auto shift = vector_arg(shift_obj, "shift");
  const std::vector<std::int64_t> trial = trial_arg(trial_obj);
  VerifyReport report;
  {
    py::gil_scoped_release release;
    report = verify_samples(
        samples_of_hashes({pitch.data(), static_cast<std::size_t>(pitch.size())},
                          {shift.data(), static_cast<std::size_t>(shift.size())}, trial, n),
        o);
  }
  return report_dict(report);
}

py::dict verify_blocks_binding(const py::object& starts_obj, double sigma, std::int64_t n,
                               const py::object& trial_obj, std::int64_t batch, int points,
                               double alpha) {
  const VerifyOptions o = options_arg(sigma, n, batch, points, alpha, kMaxBlockN);
  if (!py::isinstance<py::sequence>(starts_obj) || py::isinstance<py::str>(starts_obj))
    throw py::type_error("starts must be a sequence of arrays, one sample's block starts each");
  std::vector<std::vector<std::int64_t>> starts;
  for (const auto& item : starts_obj.cast<py::sequence>()) {
    const auto a = integer_vector_arg(item, fmt::format("starts[{}]", starts.size()));
    starts.emplace_back(a.data(), a.data() + a.size());
  }
  const std::vector<std::int64_t> trial = trial_arg(trial_obj);
  VerifyReport report;
  {
    py::gil_scoped_release release;
    report = verify_samples(samples_of_partitions(starts, trial, n), o);
  }
  return report_dict(report);
}

constexpr const char* kVerifyCommon = R"doc(

sigma: the ALiBi scale the sampler targets; n: the context length the samples
cover (>= 4). trial: optional, one trial number per sample (each trial's
samples together, trials in increasing order, the same number in each): the
trials are interleaved before batching, so a sampler that ignores the trial
index fails the dispersion lines (as a `trial` column does). batch: samples
per batch of the dispersion test; points: offsets tested, spread over
[1, 6 sigma]; alpha: the family-wise false-alarm rate of all the lines
together (the CLI's is 1e-3).

Returns a dict: lines, one per check in the CLI's order, each a dict with
name, verdict ("PASS", "FAIL", "n/a"), detail and text (the printed line,
"PASS  name: detail"); summary, the closing "checks: ..." line; passed, True
when no line FAILs (the CLI's exit 0); samples, the samples the verdict rests
on (whole batches), trials, and detectable_scale, the smallest kernel-scale
error those samples detect with power 0.99 (the CLI's header). Unusable input
raises ValueError naming the argument.)doc";

}  // namespace

void bind_verification(py::module_& m) {
  m.def("verify_hashes", &verify_hashes_binding, py::arg("pitch"), py::arg("shift"),
        py::arg("sigma"), py::arg("n"), py::arg("trial") = py::none(), py::arg("batch") = 16,
        py::arg("points") = 24, py::arg("alpha") = kCheckFamilyAlpha,
        (std::string(R"doc(Verify a sampler's hashes: `poslsh verify --hashes` on arrays.

pitch, shift: the sampler's hashes in the order it produced them, bin(i) =
floor((i - shift) / pitch), pitch finite > 0, shift finite (any value: only
shift modulo pitch matters). Runs the co-binning mean, scale and dispersion
checks at the start, middle and end anchors, the dispersion over every batch
scale, the block-size law of each sample's largest block and the pitch law
Gamma(2, sigma), and returns the very lines `poslsh verify --hashes` prints for
the same hashes written as sample,pitch,shift (bit for bit). n <= 2^50.)doc") +
         kVerifyCommon)
            .c_str());

  m.def("verify_blocks", &verify_blocks_binding, py::arg("starts"), py::arg("sigma"), py::arg("n"),
        py::arg("trial") = py::none(), py::arg("batch") = 16, py::arg("points") = 24,
        py::arg("alpha") = kCheckFamilyAlpha,
        (std::string(R"doc(Verify a sampler's blocks: `poslsh verify --blocks` on arrays.

starts: one integer array per sample, in the order the sampler produced them:
the starts of its blocks and then n, 0 = starts[k][0] < starts[k][1] < ... <
starts[k][-1] = n (what block_starts returns; block b is [starts[k][b],
starts[k][b+1])). The checks of verify_hashes, the pitch law on the bounds
each partition puts on its pitch; the very lines `poslsh verify --blocks`
prints for the same blocks written as sample,start,end. n <= 2^53.)doc") +
         kVerifyCommon)
            .c_str());
}

}  // namespace poslsh::python
