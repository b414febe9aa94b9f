#include "experiments/lm/lm.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "internal/printable.h"
#include "runner/atomic_file.h"
#include "runner/child_process.h"
#include "runner/cli_common.h"
#include "runner/external_experiment.h"
#include "runner/sweep.h"
#include "runner/text_format.h"
#include "runner/worker_process.h"

namespace poslsh {

namespace fs = std::filesystem;

const std::vector<std::string>& lm_columns() {
  static const std::vector<std::string> columns = {
      "variant", "train_s", "seed",  "phase", "steps",   "eval",   "eval_s",
      "step",    "pos_lo",  "pos_hi", "trial", "layer",   "head",   "sigma",
      "context", "metric",  "value", "stderr", "count",  "margin", "seconds", "step_cpu_seconds"};
  return columns;
}

// Named, not anonymous: the unity build puts other experiments' helpers beside these.
namespace lm_cli {

// The interpreter `python -m poslsh.lm` runs in; the options table is read
// with the default one (the table needs neither numpy's BLAS nor torch).
constexpr const char* kDefaultPython = "/usr/bin/python3";

// The folder holding the `poslsh` package beside this binary (build tree:
// <build>/python; install: <prefix>/lib/python3/dist-packages), put first on
// the child's PYTHONPATH; "" when neither has it (a pip-installed package).
std::string python_package_dir() {
  const fs::path bin = fs::path(self_executable()).parent_path();
  for (const fs::path& dir : {bin / ".." / "python", bin / ".." / "lib/python3/dist-packages"})
    if (fs::exists(dir / "poslsh" / "lm" / "__main__.py")) return dir.lexically_normal().string();
  return "";
}

// Once: the options table and the run's preparation both ask for it.
void put_package_on_path() {
  const std::string dir = python_package_dir();
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = old ? old : "";
  if (dir.empty() || path == dir || path.rfind(dir + ":", 0) == 0) return;
  ::setenv("PYTHONPATH", path.empty() ? dir.c_str() : (dir + ":" + path).c_str(), 1);
}

// Each child computes on one thread (the cell spec's "threads"; the sweep
// runs cells side by side). numpy's and torch's BLAS keep their own pool,
// which torch.set_num_threads does not reach and which sizes itself to the
// machine: its threads split the matrix products differently, so the tables'
// bits would depend on the core count, and two cells' pools would fight for
// the same cores. One thread each, whatever the caller's environment.
void pin_blas_threads() {
  for (const char* pool : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                           "BLIS_NUM_THREADS"})
    ::setenv(pool, "1", 1);
}

// What the cells import, checked once up front (after the options: a bad
// option is reported without waiting for torch) so that a missing piece is
// one line naming what to install, not a traceback per cell.
void require_torch(const std::string& python) {
  if (run_child({python, "-c", "import poslsh.lm, torch"}, true) != 0)
    throw UsageError(
        fmt::format("--python: '{}' cannot import torch or poslsh.lm (install Debian's "
                    "python3-torch: scripts/deps installs it; build the package: cmake --build "
                    "build --target poslsh_python)",
                    detail::printable(python)));
}

// The calling thread's `python3 -m poslsh.lm serve`, started at its first
// cell: cells of one thread share an interpreter, so torch is imported once
// per thread and run, not once per cell (python/poslsh/lm/__main__.py). Its
// child exits when the thread does.
WorkerProcess& cell_worker(const std::string& python) {
  thread_local std::map<std::string, std::unique_ptr<WorkerProcess>> workers;
  auto& worker = workers[python];
  if (!worker)
    worker = std::make_unique<WorkerProcess>(std::vector<std::string>{python, "-m", "poslsh.lm", "serve"});
  return *worker;
}

// Runs `python3 -m poslsh.lm MODE ARG RESULT` (a cell: in the thread's
// worker) and returns RESULT's text. Exit
// 2: unusable input, RESULT holds the one-line reason; 3: a bug in the
// package (its traceback on stderr), reported as ours; 130/143: interrupted.
// `quiet`: the child's stderr is dropped (the options table, whose failure
// is reported as one line of what to build).
std::string run_python(const std::string& python, const std::string& mode, const std::string& arg,
                       const fs::path& result, bool quiet = false) {
  const int rc = mode == "cell"
                     ? cell_worker(python).call(nlohmann::json::array({mode, arg, result.string()}).dump())
                     : run_child({python, "-m", "poslsh.lm", mode, arg, result.string()}, quiet);
  if (rc == 130 || rc == 143) throw CellInterrupted(rc - 128);
  std::string text = fs::exists(result) ? read_file("lm", result.string()) : std::string();
  fs::remove(result);
  if (rc == 2 && !text.empty()) throw InputError(single_line(text));
  if (rc == 3)
    throw std::logic_error(fmt::format("lm: `{} -m poslsh.lm {}` failed (its traceback above)",
                                       detail::printable(python, 200), mode));
  if (rc != 0)
    throw std::runtime_error(
        fmt::format("lm: `{} -m poslsh.lm {}` exited with code {}", python, mode, rc));
  return text;
}

// A result file of its own per call (cells run side by side).
fs::path result_path(const std::string& mode) {
  static std::atomic<int> calls{0};
  return fs::temp_directory_path() /
         fmt::format("poslsh-lm-{}-{}-{}.txt", mode, ::getpid(), calls.fetch_add(1));
}

// `python3 -m poslsh.lm options COMMAND`, with the default interpreter: the
// options are declared before --python is read.
std::string options_table(const std::string& command) {
  put_package_on_path();
  try {
    return run_python(kDefaultPython, "options", command, result_path("options"), true);
  } catch (const CellInterrupted&) {
    throw;
  } catch (const std::runtime_error&) {  // it did not start: no package, or no interpreter
    throw UsageError(fmt::format(
        "lm: {} cannot run poslsh.lm, which declares the options of `poslsh {}` (build it: "
        "cmake --build build --target poslsh_python, or pip install --no-build-isolation .)",
        kDefaultPython, command == "bench" ? "bench lm" : "lm"));
  }
}

// The language models as an experiment in another process: options, cells
// and rows are python/poslsh/lm/'s (config.py, experiment.py).
ExternalProgram lm_program(std::shared_ptr<std::string> python) {
  ExternalProgram p;
  p.call = [python](const std::string& mode, const std::string& arg) {
    return mode == "options" ? options_table(arg) : run_python(*python, mode, arg, result_path(mode));
  };
  p.declare_own_options = [python](CLI::App& cmd) {
    cmd.add_option("--python", *python, "Python interpreter with numpy and torch")
        ->capture_default_str();
  };
  p.prepare = [python] { prepare_lm_python(*python); };
  p.prepare_cells = [python] { lm_cli::require_torch(*python); };
  return p;
}

Action add_lm_command(CLI::App& parent) {
  auto python = std::make_shared<std::string>(kDefaultPython);
  return swept_command(parent, "lm",
                       "Small ALiBi language models trained with positional-LSH attention "
                       "(PyTorch)",
                       std::make_shared<ExternalExperiment>("lm", lm_program(python)),
                       lm_summary_csv);
}

}  // namespace lm_cli

void prepare_lm_python(const std::string& python) {
  if (!on_path(python))
    throw UsageError(
        fmt::format("--python: '{}' is not an executable (accepted: a Python 3 "
                    "interpreter with numpy and torch, e.g. /usr/bin/python3)",
                    detail::printable(python)));
  lm_cli::put_package_on_path();
  lm_cli::pin_blas_threads();
}

void require_lm_torch(const std::string& python) { lm_cli::require_torch(python); }

std::string run_lm_python(const std::string& python, const std::string& mode,
                          const std::string& arg) {
  return lm_cli::run_python(python, mode, arg, lm_cli::result_path(mode));
}

std::string lm_options_table(const std::string& command) { return lm_cli::options_table(command); }

namespace {

const bool registered_lm = register_experiment({
    .name = "lm",
    .summary = "Small ALiBi language models trained with positional-LSH attention (PyTorch)",
    .add_command = lm_cli::add_lm_command,
    .add_bench = {},
    .checker = {.required_columns = lm_columns(),
                .run = [](const CsvTable& t, double alpha) { return check_lm_table(t, alpha); }},
    .summarize = lm_summary_csv,
    .figures = {{.script = "lm_loss_vs_s", .title = "Language models: validation loss against s"},
                {.script = "lm_frontier",
                 .title = "Language models: loss against keys per query (equal cost)"},
                {.script = "lm_learning_curves", .title = "Language models: learning curves"},
                {.script = "lm_finetune",
                 .title = "Language models: fine-tuning exact-ALiBi models"},
                {.script = "lm_loss_vs_length", .title = "Language models: length extrapolation"},
                {.script = "lm_swapin_error_vs_s",
                 .title = "Language models: swap-in output error against s on trained Q, K, V"}},
    .report_section = add_lm_report_section,
});

}  // namespace

}  // namespace poslsh
