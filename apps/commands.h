// The CLI's built-in subcommands, which apps/cli_app.cpp adds to the app
// (experiments register themselves; see experiments/experiment.h). Each adds
// its subcommand to `app` and returns the action to run when it is chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "runner/command.h"

namespace poslsh {

Action add_sample_command(CLI::App& app);
Action add_check_command(CLI::App& app);
Action add_verify_command(CLI::App& app);
Action add_merge_command(CLI::App& app);
Action add_reproduce_command(CLI::App& app);
Action add_rerun_command(CLI::App& app);

// What `poslsh reproduce --config` plans for a config's text: the sections it
// runs, in config order (UsageError for a section that names no experiment),
// and the alpha each checked table gets when `sections` ran (Bonferroni over
// every section but the benchmarks).
std::vector<std::string> reproduce_sections(const std::string& toml, const std::string& config);
double reproduce_table_alpha(const std::vector<std::string>& sections);

}  // namespace poslsh
