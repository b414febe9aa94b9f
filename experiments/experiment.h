// How an experiment plugs into the `poslsh` CLI and `poslsh check`.
//
// An experiment file registers itself at static-initialisation time:
//
//   namespace {
//   const bool registered = poslsh::register_experiment({
//       .name = "convergence",
//       .summary = "Spectral and max-norm errors of M~ vs s",
//       .add_command = [](CLI::App& parent) -> poslsh::Action { ... },
//       .add_bench = ...,   // optional: `poslsh bench convergence`
//       .checker = ...,     // optional: checks on this experiment's CSVs
//   });
//   }
//
// add_command creates the subcommand on `parent` and returns the Action the CLI
// runs when it is chosen. A sweep experiment declares itself as a
// SweptExperiment (src/runner/swept_experiment.h: its options, validate(),
// cells(), rows(cell), columns) and add_command is
//   [](CLI::App& parent) { return swept_command(parent, name, summary,
//                                               std::make_shared<MyExperiment>()); }
// so that the runner does the sweep, resume, shards, progress and output
// ("Adding an experiment" in docs/ARCHITECTURE.md). Other commands declare
// their options (bound to state the Action owns, e.g. through a
// std::shared_ptr) and validate them in the Action (UsageError, one line
// naming the option and what it accepts).
//
// Config files: `--config FILE.toml` is a top-level option; a `[name]` section
// fills this subcommand's options (same names without dashes), the command
// line overrides the file, unknown keys are errors. Give every option a
// default or mark it required. The run records its options
// (runner/resolved_config.h); an option another one replaces is left out by
// the experiment's SweptExperiment::recorded_options.
//
// The check vocabulary (Verdict, CheckOutcome, Checker) is in
// experiments/check_outcome.h, `poslsh check` on a file in check_file.h.
//
// Timing: wall-clock columns (e.g. "seconds") go in Sweep::timing_columns;
// every other column must be a deterministic function of (options, seed).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "experiments/check_outcome.h"
#include "runner/command.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"  // summaries are CSV text written with it

namespace CLI {
class App;
}

namespace poslsh {

struct ExperimentRegistration {
  std::string name;
  std::string summary;
  std::function<Action(CLI::App& parent)> add_command;
  std::function<Action(CLI::App& bench_parent)> add_bench;  // may be empty
  Checker checker;                                          // run may be empty
  // May be empty. The table's summary, written beside it as summary_path(out)
  // by the experiment and, from the merged table, by `poslsh merge`, so a
  // sharded run ends with the files a single run writes. CSV text, written
  // with runner/csv_writer.h as every table is.
  std::function<std::string(const CsvTable&)> summarize = {};
};

bool register_experiment(ExperimentRegistration experiment);
// All registered experiments, sorted by name.
const std::vector<ExperimentRegistration>& experiments();

}  // namespace poslsh
