// The CLI's built-in subcommands, which apps/cli_app.cpp adds to the app
// (experiments register themselves; see experiments/experiment.h). Each adds
// its subcommand to `app` and returns the action to run when it is chosen.
#pragma once

#include <CLI/CLI.hpp>

#include "runner/command.h"

namespace poslsh {

Action add_sample_command(CLI::App& app);
Action add_check_command(CLI::App& app);
Action add_verify_command(CLI::App& app);
Action add_merge_command(CLI::App& app);
Action add_reproduce_command(CLI::App& app);
Action add_rerun_command(CLI::App& app);

}  // namespace poslsh
