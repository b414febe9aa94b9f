// What poslsh adds to CLI11 (2.1), for any CLI11 app: --config anywhere on
// the line (CLI11 reads it only before the subcommand), ranges in numeric list
// options (on the line and in a --config file: src/runner/list_ranges.h), TOML
// syntax CLI11 would misread refused before CLI11 reads it
// (runner/config_syntax.h), and parse errors worded by the option they are
// about, with the closest valid name. apps/cli_app.h assembles poslsh's app
// with them.
#pragma once

#include <string>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace poslsh {

// Lets `app` and its subcommands take ranges in numeric list options from a
// --config file (quoted: s = "1:256:x2"), and documents them in the --help
// footer of every subcommand that has such options. Call once the app has all
// its subcommands.
void enable_list_ranges(CLI::App& app);
// The footer alone, for `command` and its subcommands (options declared late:
// runner/external_experiment.h).
void document_list_ranges(CLI::App& command);

// Parses argv (argv[0] is the program) as poslsh does: --config hoisted to the
// front, ranges expanded, the config file's syntax checked, then CLI11's
// parse. Throws what CLI11 throws (CLI::ParseError and its help and version
// requests) and UsageError for a --config file CLI11 would misread.
void parse_command_line(CLI::App& app, int argc, char** argv);

// A parse error as the CLI reports it: naming the option and what it
// accepts, or the unknown subcommand, with the closest valid name.
std::string describe_parse_error(const CLI::ParseError& e, CLI::App& app, int argc, char** argv);

}  // namespace poslsh
