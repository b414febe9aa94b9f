// A declarative experiment: it says what it measures (its options, its cells,
// the rows of one cell, its columns) and the runner does the rest. swept_command
// turns one into a subcommand: it declares the experiment's options and the
// runner's (--out, --threads, --resume, --shard, --quiet, --no-timing,
// --max-memory), and when the subcommand runs it calls validate(), lists
// cells() and hands them to run_sweep (threads, durability and --resume,
// shards, progress, provenance), then writes the table's summary. Checks
// belong to the registration (experiments/experiment.h: Checker).
//
// A new experiment is one file in experiments/ and one registration; see
// "Adding an experiment" in docs/ARCHITECTURE.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runner/csv_table.h"
#include "runner/resolved_config.h"
#include "runner/sweep.h"

namespace CLI {
class App;
}

namespace poslsh {

template <class Cell>
class SweptExperiment {
 public:
  using CellType = Cell;
  virtual ~SweptExperiment() = default;

  // Declares the experiment's options on its subcommand, bound to members.
  // Give every option a default or mark it required (a config section fills
  // them by name).
  virtual void declare_options(CLI::App& command) = 0;
  // Called once when the subcommand runs, before anything else: throws
  // UsageError with one line naming the option and what it accepts; may
  // prepare what the cells share (data, settings). `sweep`: the runner's
  // options (threads a cell may use when cells are fewer than threads; the
  // memory limit).
  virtual void validate(CLI::App& command, const SweepOptions& sweep) = 0;

  // The CSV schema, and its wall-clock columns (blanked by --no-timing).
  virtual std::vector<std::string> columns() const = 0;
  virtual std::vector<std::string> timing_columns() const { return {}; }
  // The cells, in table order, and the rows of one cell: called concurrently
  // for different cells, so thread-safe, and a function of the cell and the
  // options only (byte-identical tables for any thread count or shard).
  virtual std::vector<Cell> cells() const = 0;
  virtual std::vector<CsvRow> rows(const Cell& cell) const = 0;
  // The cell's name in progress and error messages ("n=1024 sigma=16").
  virtual std::string label(const Cell& cell) const = 0;

  // Optional estimate of one cell's peak working set (bytes): the runner
  // refuses a run whose concurrent cells would not fit (Sweep::memory_bytes).
  virtual bool estimates_memory() const { return false; }
  virtual double memory_bytes(const Cell&) const { return 0; }
  // Optional relative running time of one cell: cells start costliest first
  // (Sweep::cost); equal costs keep cell order.
  virtual double cost(const Cell&) const { return 1; }
  // Provenance the options alone do not hold, TOML comment lines appended to
  // the recorded config (and so to the fingerprint --resume and merge compare).
  virtual std::string config_note() const { return {}; }
  virtual std::uint64_t seed() const = 0;
  // Options the recorded config leaves out, or records in another form than
  // given (runner/resolved_config.h: an option another one replaces, a path
  // made absolute); called once, after validate().
  virtual RecordedOptions recorded_options(const CLI::App&) const { return {}; }
  // Called once after the sweep wrote its table, before the summary (e.g. to
  // remove scratch files the cells kept for --resume).
  virtual void finished() const {}
};

// The summary an experiment writes beside its table (summary_path(out)),
// recomputed from the written table; empty: none.
using TableSummary = std::function<std::string(const CsvTable&)>;

// Runs `sweep` as the table of `command` (the experiment's name is the
// command's; its resolved options, as `recorded` says, are prepended to
// sweep.resolved_config, the experiment's note) and, when it succeeded, calls
// `finished` and writes the summary if `summarize` is set. Returns run_sweep's
// exit code.
int run_swept(const CLI::App& command, Sweep sweep, const SweepOptions& options,
              const RecordedOptions& recorded, const TableSummary& summarize,
              const std::function<void()>& finished);

// parent.add_subcommand(name, summary), out of line (CLI11 stays out of this header).
CLI::App* add_swept_subcommand(CLI::App& parent, const std::string& name,
                               const std::string& summary);

// The Sweep of an experiment whose validate() has run: its cells, labels,
// rows and memory estimates.
template <class Experiment>
Sweep sweep_of(std::shared_ptr<const Experiment> experiment) {
  using Cell = typename Experiment::CellType;
  auto cells = std::make_shared<const std::vector<Cell>>(experiment->cells());
  Sweep sweep;
  sweep.columns = experiment->columns();
  sweep.timing_columns = experiment->timing_columns();
  sweep.num_cells = cells->size();
  sweep.label = [experiment, cells](std::size_t c) { return experiment->label((*cells)[c]); };
  sweep.run_cell = [experiment, cells](std::size_t c) { return experiment->rows((*cells)[c]); };
  if (experiment->estimates_memory())
    sweep.memory_bytes = [experiment, cells](std::size_t c) {
      return experiment->memory_bytes((*cells)[c]);
    };
  sweep.cost = [experiment, cells](std::size_t c) { return experiment->cost((*cells)[c]); };
  sweep.resolved_config = experiment->config_note();
  sweep.seed = experiment->seed();
  return sweep;
}

// Adds subcommand `name` for `experiment` to `parent` and returns its action.
template <class Experiment>
std::function<int()> swept_command(CLI::App& parent, const std::string& name,
                                   const std::string& summary,
                                   std::shared_ptr<Experiment> experiment,
                                   TableSummary summarize = {}) {
  CLI::App* command = add_swept_subcommand(parent, name, summary);
  experiment->declare_options(*command);
  auto options = std::make_shared<SweepOptions>();
  add_sweep_options(*command, *options);
  return [command, experiment, options, summarize] {
    experiment->validate(*command, *options);
    return run_swept(*command, sweep_of(std::shared_ptr<const Experiment>(experiment)), *options,
                     experiment->recorded_options(*command), summarize,
                     [experiment] { experiment->finished(); });
  };
}

}  // namespace poslsh
