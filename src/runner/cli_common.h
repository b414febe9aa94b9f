// Command-line conventions shared by every subcommand: one exception type for
// bad input (exit code 2, one line naming the option and what it accepts) and
// the validators that produce it.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// Every command that takes --alibi-heads needs both: the scales (core) and the
// options' help and validation (runner).
#include <poslsh/alibi_heads.h>

#include "runner/alibi_heads_options.h"

namespace poslsh {

// Bad input from the user: printed as one line, exit code 2, no output written.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The flag that sets the core argument named `argument` by meaning ("sigma"
// -> "--sigma", "rel_tol" -> "--spectral-tol"); empty when no flag does.
std::string flag_for(std::string_view argument);
// What the CLI prints for `e`: an ArgumentError's message with its flag
// (flag_for; by meaning when no flag sets it), otherwise e.what().
std::string cli_message(const std::exception& e);

// Runs a subcommand's action and turns what it throws into the documented exit
// codes, printing one line on stderr that starts with `who`:
//   2  UsageError or InputError: the user's options or data ("error: ..."),
//      an ArgumentError from the core named by its flag (flag_for);
//   3  any other std::logic_error (std::invalid_argument included): a broken
//      invariant inside poslsh, i.e. a bug ("internal error: ... please
//      report it with the command line and `poslsh --version`");
//   1  any other std::exception: the run failed (I/O, memory, ...).
// The action's own return value (0 ok, 1 a check failed) passes through.
int run_reporting_errors(const std::string& who, const std::function<int()>& action);

// Throws UsageError naming the file and line unless every line of the config
// file at `path` is blank, a # comment, a [section] or `key = value` with a
// value that is a number, true/false, a quoted string or a one-line [array]
// of those. CLI11's reader is lenient (an unterminated `n = [64` was taken as
// absent and the defaults ran); this check runs first. An unreadable file is
// left to the config reader's own message.
void check_config_syntax(const std::string& path);

// `text` with newlines turned into spaces and trailing spaces dropped: error
// messages (CLI11's hold newlines) are printed as one line.
std::string single_line(std::string text);

// Throw UsageError("--opt must be ... (got ...)") unless the value is
// acceptable: the core's checks (poslsh/argument_error.h) and wording, so an
// option and the core argument it sets are refused in the same words.
void require_positive_finite(const std::string& option, double value);
void require_positive_finite(const std::string& option, const std::vector<double>& values);
void require_at_least(const std::string& option, std::int64_t value, std::int64_t min);
void require_at_least(const std::string& option, const std::vector<std::int64_t>& values,
                      std::int64_t min);
void require_open_unit(const std::string& option, double value);  // 0 < value < 1
void require_nonempty(const std::string& option, std::size_t size);

// "K/N" with 1 <= K <= N; throws UsageError naming --shard otherwise.
struct Shard {
  int index = 1;  // K, 1-based
  int count = 1;  // N
};
Shard parse_shard(const std::string& text);

// Shortest decimal that reads back to the same double (fmt's round-trip
// format). Deterministic across platforms; "nan"/"inf" for non-finite values.
std::string format_double(double value);

}  // namespace poslsh
