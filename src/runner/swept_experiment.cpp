#include "runner/swept_experiment.h"

#include <CLI/CLI.hpp>

#include "runner/atomic_file.h"

namespace poslsh {

CLI::App* add_swept_subcommand(CLI::App& parent, const std::string& name,
                               const std::string& summary) {
  return parent.add_subcommand(name, summary);
}

int run_swept(const CLI::App& command, Sweep sweep, const SweepOptions& options,
              const RecordedOptions& recorded, const TableSummary& summarize,
              const std::function<void()>& finished) {
  sweep.experiment = command.get_name();
  sweep.resolved_config = resolved_config(command, recorded) + sweep.resolved_config;
  const int rc = run_sweep(sweep, options);
  if (rc != 0) return rc;
  if (finished) finished();
  // A stream carries the table alone (runner/atomic_file.h).
  if (!summarize || is_stream_output(options.out)) return 0;
  // The summary is recomputed from the written table, so it always agrees with it.
  const CsvTable table = CsvTable::read(options.out);
  AtomicFile summary(summary_path(options.out), "--out");
  summary.write(summarize(table));
  summary.commit();
  return 0;
}

}  // namespace poslsh
