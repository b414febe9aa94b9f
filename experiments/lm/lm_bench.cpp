// `poslsh bench lm`: seconds per training step and peak memory of every
// language-model attention variant (exact ALiBi dense and banded, nobias,
// sinusoidal, fixed-block, and lsh, fixed and window at every s), side by side on one
// thread, at each context n, each point in a fresh process. The timing runs in
// `python3 -m poslsh.lm bench` (python/poslsh/lm/bench.py says what a step is).
#include <fmt/format.h>
#include <poslsh/alibi_heads.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "experiments/bench_timing.h"
#include "experiments/experiment.h"
#include "experiments/lm/lm.h"
#include "internal/printable.h"
#include "runner/atomic_file.h"
#include "runner/cli_common.h"

namespace poslsh {

// A named namespace, not an anonymous one: the runner is a unity build.
namespace lm_bench {

const std::vector<std::string> kBenchVariants = {"exact-dense", "exact", "nobias", "sinusoidal",
                                                 "fixed-block", "lsh",   "fixed",  "window"};

struct LmBenchOptions {
  std::vector<std::int64_t> n = {128, 1024};
  std::vector<std::int64_t> s = {1, 4, 10, 20};
  std::vector<std::string> variant = kBenchVariants;
  std::int64_t layers = 4, heads = 4, width = 64, tokens = 2048, batch = 0, repeats = 3;
  std::vector<double> sigmas;  // empty: Press et al.'s slopes
  int threads = 0;             // accepted for `poslsh reproduce`; the timing uses one
  std::string python = "/usr/bin/python3", out;
};

void validate(const LmBenchOptions& o) {
  require_nonempty("--n", o.n.size());
  require_at_least("--n", o.n, 2);
  require_nonempty("--s", o.s.size());
  require_hash_count("--s", o.s);
  require_nonempty("--variant", o.variant.size());
  for (const auto& v : o.variant)
    if (std::find(kBenchVariants.begin(), kBenchVariants.end(), v) == kBenchVariants.end())
      throw UsageError(fmt::format("--variant accepts {} (got '{}')", fmt::join(kBenchVariants, ", "),
                                   detail::printable(v)));
  require_at_least("--batch", o.batch, 0);
  for (auto [name, value] : {std::pair{"--layers", o.layers},
                             {"--heads", o.heads},
                             {"--width", o.width},
                             {"--tokens", o.tokens},
                             {"--repeats", o.repeats}})
    require_at_least(name, value, 1);
  if (o.width % o.heads != 0)
    throw UsageError(
        fmt::format("--width must be a multiple of --heads ({}), got {}", o.heads, o.width));
  if (!o.sigmas.empty() && static_cast<std::int64_t>(o.sigmas.size()) != o.heads)
    throw UsageError(fmt::format("--sigmas must hold one ALiBi scale per head (--heads {}), got {}",
                                 o.heads, o.sigmas.size()));
  if (!o.sigmas.empty()) require_positive_finite("--sigmas", o.sigmas);
  for (const std::int64_t n : o.n)
    if (o.batch == 0 && o.tokens % n != 0)
      throw UsageError(fmt::format(
          "--tokens must be a multiple of every --n (a step is tokens / n windows), got {} and n = {}",
          o.tokens, n));
}

int run_lm_bench(const LmBenchOptions& o) {
  validate(o);
  std::unique_ptr<AtomicFile> file;
  if (!o.out.empty()) file = std::make_unique<AtomicFile>(o.out, "--out");  // fails early
  prepare_lm_python(o.python);
  const nlohmann::ordered_json spec = {
      {"n", o.n},
      {"s", o.s},
      {"layers", o.layers},
      {"heads", o.heads},
      {"width", o.width},
      {"sigmas", o.sigmas.empty() ? alibi_head_sigmas(static_cast<int>(o.heads)) : o.sigmas},
      {"tokens", o.tokens},
      {"batch", o.batch},
      {"repeats", o.repeats},
      {"threads", 1},
      {"variants", o.variant}};
  const std::string step = o.batch > 0 ? fmt::format("{} windows of n a step", o.batch)
                                       : fmt::format("{} tokens a step: tokens / n windows", o.tokens);
  fmt::print(bench_report(o.out), 
      "bench lm: seconds per AdamW step and peak memory ({} layers, {} heads, width {}, {}), one "
      "thread, a fresh process per point, best of {}; banded attention where it pays, exact-dense "
      "the dense reference\n",
      o.layers, o.heads, o.width, step, o.repeats);
  const auto result = std::filesystem::temp_directory_path() /
                      fmt::format("poslsh-bench-lm-{}.csv", ::getpid());
  const std::string table = run_lm_python(o.python, "bench", spec.dump(), result.string());
  fmt::print(bench_report(o.out), "{}", table);
  if (file) {
    file->write(table);
    file->commit();
    fmt::print(bench_report(o.out), "wrote {}\n", o.out);
  }
  return 0;
}

Action add_lm_bench(CLI::App& bench) {
  auto o = std::make_shared<LmBenchOptions>();
  auto* cmd = bench.add_subcommand(
      "lm",
      "Seconds per training step and peak memory of each language-model attention variant "
      "(PyTorch)");
  cmd->add_option("--n", o->n, "Contexts (list)")->delimiter(',')->capture_default_str();
  cmd->add_option("--s", o->s, "Hashes of lsh (and the cost fixed and window match)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--layers", o->layers, "Transformer blocks")->capture_default_str();
  cmd->add_option("--heads", o->heads, "Attention heads")->capture_default_str();
  cmd->add_option("--width", o->width, "Model width")->capture_default_str();
  cmd->add_option("--sigmas", o->sigmas, "ALiBi scale per head (default: Press et al.'s slopes)")
      ->delimiter(',');
  cmd->add_option("--variant", o->variant,
                  "Points at each n: exact-dense, exact, nobias, sinusoidal, fixed-block, lsh, fixed, window")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--tokens", o->tokens,
                  "Bytes per step when --batch is 0: tokens / n windows of n (a multiple of every n)")
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "Windows of n per step (0: --tokens / n)")
      ->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "Timed steps per variant (best kept)")
      ->capture_default_str();
  cmd->add_option("--python", o->python, "Python interpreter with numpy and torch")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Accepted for `poslsh reproduce`; timing uses one")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Also write the table as CSV (atomically)");
  return [o] { return run_lm_bench(*o); };
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
