// The command interface: what the CLI runs when a subcommand is chosen. A
// command (apps/*_command.cpp, an experiment's add_command) declares its
// options on its CLI11 subcommand, bound to state the action owns, and
// returns the action; the action returns the exit code (0 ok, 1 a check or
// run failed) and throws for the others (runner/cli_errors.h:
// run_reporting_errors).
#pragma once

#include <functional>

namespace poslsh {

using Action = std::function<int()>;

}  // namespace poslsh
