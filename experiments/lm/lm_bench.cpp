// `poslsh bench lm`: seconds per training step and peak memory of every
// language-model attention variant (exact ALiBi dense and banded, nobias,
// sinusoidal, fixed-block, and lsh, fixed and window at every s), side by side on one
// thread, at each context n, each point in a fresh process. The timing runs in
// `python3 -m poslsh.lm bench` (python/poslsh/lm/bench.py says what a step is),
// with the options python/poslsh/lm/config.py declares (BenchConfig).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "experiments/bench_timing.h"
#include "experiments/experiment.h"
#include "experiments/lm/lm.h"
#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/external_experiment.h"

namespace poslsh {

// A named namespace, not an anonymous one: the runner is a unity build.
namespace lm_bench {

// The options are python/poslsh/lm/config.py's BenchConfig (declared once
// `bench lm` is chosen), and these three the runner's own.
struct LmBenchRun {
  std::string python = "/usr/bin/python3", out;
  int threads = 0;  // accepted for `poslsh reproduce`; the timing uses one
  std::vector<const CLI::Option*> declared;
};

int run_lm_bench(const LmBenchRun& r) {
  std::unique_ptr<AtomicFile> file;
  if (!r.out.empty()) file = std::make_unique<AtomicFile>(r.out, "--out");  // fails early
  prepare_lm_python(r.python);
  require_lm_torch(r.python);
  const std::string table = run_lm_python(r.python, "bench", given_options_json(r.declared));
  fmt::print(bench_report(r.out), "{}", table);
  if (file) {
    file->write(table);
    file->commit();
    fmt::print(bench_report(r.out), "wrote {}\n", r.out);
  }
  return 0;
}

void add_own_options(CLI::App& cmd, LmBenchRun& r) {
  cmd.add_option("--python", r.python, "Python interpreter with numpy and torch")
      ->capture_default_str();
  cmd.add_option("--threads", r.threads, "Accepted for `poslsh reproduce`; timing uses one")
      ->capture_default_str();
  cmd.add_option("--out", r.out, "Also write the table as CSV (atomically)");
}

Action add_lm_bench(CLI::App& bench) {
  auto r = std::make_shared<LmBenchRun>();
  auto declared = std::make_shared<std::vector<const CLI::Option*>>();
  auto* cmd = bench.add_subcommand(
      "lm",
      "Seconds per training step and peak memory of each language-model attention variant "
      "(PyTorch)");
  declare_external_options(
      *cmd, [] { return lm_options_table("bench"); },
      [r](CLI::App& c) { add_own_options(c, *r); }, declared);
  return [r, declared] {
    r->declared = *declared;
    return run_lm_bench(*r);
  };
}

const bool registered_lm_bench = register_experiment({
    .name = "lm",
    .summary = "Language models",
    .add_command = nullptr,
    .add_bench = add_lm_bench,
    .checker = {},
});

}  // namespace lm_bench

}  // namespace poslsh
