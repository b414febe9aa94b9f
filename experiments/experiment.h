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
// default or mark it required, and build Sweep::resolved_config with
// resolved_config(command) below.
//
// Timing: wall-clock columns (e.g. "seconds") go in Sweep::timing_columns;
// every other column must be a deterministic function of (options, seed).
#pragma once

#include <poslsh/input_error.h>

#include <functional>
#include <string>
#include <vector>

#include "runner/csv_table.h"
#include "runner/csv_writer.h"  // summaries are CSV text written with it

namespace CLI {
class App;
}

namespace poslsh {

using Action = std::function<int()>;

// kInfo: a reported number that is not a test (e.g. a bound whose slack makes
// failure impossible in practice); it never changes the exit code.
// kWarning: not a test either, but something the user should act on (e.g. an
// approximation that costs more than the exact computation); exit code unchanged.
enum class Verdict { kPass, kFail, kNotApplicable, kInfo, kWarning };

// The family-wise false-alarm rate of one whole `poslsh check` run on a sound
// sampler: check_file gets kCheckFamilyAlpha / (number of files), and each
// checker splits the alpha it is handed over its statistical checks
// (Bonferroni), so the rate holds under any dependence between the checks.
inline constexpr double kCheckFamilyAlpha = 1e-3;

// One line of `poslsh check` output.
struct CheckOutcome {
  std::string check;  // short name, e.g. "rate[n=1024,sigma=16] spectral"
  Verdict verdict;
  std::string detail;  // the numbers and the threshold
};

struct Checker {
  // A table belongs to this experiment when it has all these columns.
  std::vector<std::string> required_columns;
  // alpha: the family-wise false-alarm rate this table's checks may spend
  // together. Throws std::invalid_argument for an unusable table (a bound or
  // derived column that disagrees with its recomputation from the parameters,
  // a NaN or infinite measurement, a duplicated column).
  std::function<std::vector<CheckOutcome>(const CsvTable&, double alpha)> run;
};

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

// The subcommand's options with their resolved values as TOML (runner options
// such as --out, --threads, --resume, --shard, --quiet excluded): provenance
// for .meta.json and the fingerprint that --resume and merge compare.
std::string resolved_config(const CLI::App& command);

// Checks on one CSV file: finds the experiment by its columns and runs its
// checker. Throws std::invalid_argument for an unreadable file or a table no
// experiment recognises.
struct CheckReport {
  std::string experiment;
  std::vector<CheckOutcome> outcomes;
};
CheckReport check_file(const std::string& path, double alpha = kCheckFamilyAlpha);

const char* verdict_name(Verdict v);

// The verdict of a rate test (src/runner/rate_interval.h): FAIL when the interval
// lies outside the band, PASS when it is inside and the test could have
// failed, info when it has too few trials for that.
struct RateInterval;
Verdict rate_verdict(const RateInterval& interval);

// A checker's verdict on a table it cannot use (a NaN bound, a missing
// trial, ...): InputError, one line naming the row and column.
[[noreturn]] inline void unusable(const std::string& what) { throw InputError(what); }

// Prints one line per outcome ("PASS  name: detail") on stdout and counts them.
struct CheckTally {
  int passed = 0, failed = 0, not_applicable = 0, info = 0, warnings = 0;
};
void print_outcomes(const std::vector<CheckOutcome>& outcomes, CheckTally& tally);
// The closing line of `poslsh check` and `poslsh verify`.
void print_tally(const CheckTally& tally);

}  // namespace poslsh
