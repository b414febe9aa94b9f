// The sweep runner shared by every experiment (ann-benchmarks style: one result
// per parameter cell). An experiment describes its cells and how to compute the
// CSV rows of one cell; the runner takes care of
//   - threads: cells run in parallel, rows are written in cell order, so the CSV
//     is byte-identical for any thread count (apart from timing columns);
//   - durability: every finished cell is appended to <out>.partial at once;
//     --resume skips the cells found there; the final CSV replaces <out>
//     atomically; SIGINT stops after the running cells and says how to resume;
//   - scale-out: --shard K/N runs the K-th of N contiguous slices of the cells,
//     and `poslsh merge` concatenates shard outputs into the single-run bytes;
//   - provenance: <out>.meta.json beside the CSV (version, commit, resolved
//     config, seed, shard, duration);
//   - progress on stderr (a bar with ETA on a terminal, plain lines otherwise).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace poslsh {

using CsvRow = std::vector<std::string>;

// Thrown by a cell whose work was interrupted by a signal (e.g. a child process
// that got the terminal's SIGINT): the sweep stops as if it had received
// `signal` itself, keeping every finished cell for --resume.
class CellInterrupted : public std::runtime_error {
 public:
  explicit CellInterrupted(int signal)
      : std::runtime_error("interrupted by signal " + std::to_string(signal)), signal(signal) {}
  int signal;
};

struct SweepOptions {
  std::string out;      // target CSV path (required)
  int threads = 0;      // 0: one per hardware thread
  bool resume = false;  // continue from <out>.partial
  std::string shard = "1/1";
  bool quiet = false;         // no progress output
  bool no_timing = false;     // timing columns written empty (bitwise comparisons)
  double max_memory_gib = 0;  // refuse runs whose estimate exceeds this (0: the machine's memory)
};

// Adds --out, --threads, --resume, --shard, --quiet, --no-timing and
// --max-memory to a subcommand.
void add_sweep_options(CLI::App& command, SweepOptions& options);

struct Sweep {
  std::string experiment;                   // e.g. "convergence"
  std::vector<std::string> columns;         // the CSV schema, one constant list
  std::vector<std::string> timing_columns;  // wall-clock columns (blanked by --no-timing)
  std::size_t num_cells = 0;
  // Human-readable name of a cell, for progress and error messages.
  std::function<std::string(std::size_t cell)> label;
  // Rows of one cell. Called concurrently from several threads for different
  // cells: must be thread-safe and depend only on the cell (and the seed).
  std::function<std::vector<CsvRow>(std::size_t cell)> run_cell;
  // Estimated peak working set of one cell, bytes (optional). run_sweep adds
  // the largest estimates of the cells that may run at once and refuses the
  // run up front (UsageError, nothing written) when that exceeds the limit,
  // rather than let the kernel kill it halfway through a sweep.
  std::function<double(std::size_t cell)> memory_bytes;
  // Relative running time of one cell (optional): cells start costliest
  // first, so that a long cell does not start last and leave the other
  // threads idle. The table is in cell order whatever order they ran in.
  std::function<double(std::size_t cell)> cost;
  // The experiment's resolved options (TOML text): provenance, and the
  // fingerprint that stops --resume or merge from mixing different sweeps.
  std::string resolved_config;
  std::uint64_t seed = 0;
};

// Runs the sweep and returns the process exit code: 0 on success, 130 when
// interrupted by SIGINT (progress kept in <out>.partial); when a cell threw,
// the code run_reporting_errors gives its exception (2 bad input, 3 internal
// error, 1 otherwise).
// Throws UsageError for bad options (unwritable --out, malformed --shard, a
// .partial from a different sweep).
int run_sweep(const Sweep& sweep, const SweepOptions& options);

// The contiguous slice [begin, end) of `num_cells` that shard K/N runs.
std::pair<std::size_t, std::size_t> shard_range(std::size_t num_cells, int index, int count);

// "<out stem>.summary.csv" beside an experiment's table <out> ("x.csv" ->
// "x.summary.csv"; any other name gets ".summary.csv" appended).
std::string summary_path(const std::string& out);

// 64-bit FNV-1a of text: fingerprints of resolved configs.
std::uint64_t fingerprint(const std::string& text);

// Physical memory of this machine in bytes (0 if unknown).
double physical_memory_bytes();

// Throws UsageError unless `bytes` (an estimate for `what`) fits the limit:
// options.max_memory_gib, or the machine's memory when that is 0.
void require_memory(const std::string& what, double bytes, const SweepOptions& options);

}  // namespace poslsh
