// Errors and exit codes of the CLI: one exception type for bad input (exit
// code 2, one line naming the option and what it accepts), the flags that name
// the core's arguments, and the mapping of what an action throws to the
// documented exit codes.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace poslsh {

// Bad input from the user: printed as one line, exit code 2, no output written.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The flag that sets the core argument named `argument` by meaning ("sigma"
// -> "--sigma", "rel_tol" -> "--spectral-tol"); empty when no flag does.
std::string flag_for(std::string_view argument);
// Declares that `flag` sets the core argument `argument` (an experiment's
// own option); returns true, for a static initialiser. Throws
// std::logic_error when the argument already has another flag.
bool register_argument_flag(std::string_view argument, std::string_view flag);
// What the CLI prints for `e`: an ArgumentError's message with its flag
// (flag_for; by meaning when no flag sets it), otherwise e.what().
std::string cli_message(const std::exception& e);

// Runs a subcommand's action and turns what it throws into the documented exit
// codes, printing one line on stderr that starts with `who`:
//   2  UsageError or InputError: the user's options or data ("error: ..."),
//      an ArgumentError from the core named by its flag (flag_for);
//   3  any other std::logic_error (a plain std::invalid_argument too): a broken
//      invariant inside poslsh, i.e. a bug ("internal error: ... please
//      report it with the command line and `poslsh --version`");
//   1  any other std::exception: the run failed (I/O, memory, ...).
// The action's own return value (0 ok, 1 a check failed) passes through.
int run_reporting_errors(const std::string& who, const std::function<int()>& action);


}  // namespace poslsh
