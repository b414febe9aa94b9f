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
// `poslsh reproduce` shows what the registration declares: the figures drawn
// from the experiment's table and from its benchmark's (FigureSpec), and the
// experiment's own section of the report (ReportSection); it knows no
// experiment by name.
//
// The check vocabulary (Verdict, CheckOutcome, Checker) is in
// experiments/checks/check_outcome.h, `poslsh check` on a file in check_file.h.
//
// Timing: wall-clock columns (e.g. "seconds") go in Sweep::timing_columns;
// every other column must be a deterministic function of (options, seed).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "experiments/checks/check_outcome.h"
#include "runner/command.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"  // summaries are CSV text written with it

namespace CLI {
class App;
}

namespace poslsh {

class ReportDocument;

// A figure `poslsh reproduce` draws from a table: plots/<script>.py TABLE -o
// <file>.png, where file is `file`, or the script's name when `file` is empty
// (two tables drawn by one script need two files). The script also writes
// <file>.pdf, .svg and a one-line <file>.caption.txt; `title` heads the
// figure in the report.
struct FigureSpec {
  std::string script, title, file = {};
  const std::string& file_name() const { return file.empty() ? script : file; }
};

// An experiment's own section of the reproduction report, added after the
// table of experiments when its table `table_csv` was written (exit code 0).
using ReportSection = std::function<void(ReportDocument& doc, const std::string& table_csv)>;

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
  // What the reproduction report shows of this experiment, all optional: the
  // figures of its table and of its benchmark's table, in report order, and
  // its own section.
  std::vector<FigureSpec> figures = {};
  std::vector<FigureSpec> bench_figures = {};
  ReportSection report_section = {};
};

bool register_experiment(ExperimentRegistration experiment);
// All registered experiments, sorted by name.
const std::vector<ExperimentRegistration>& experiments();

}  // namespace poslsh
