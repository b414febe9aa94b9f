// The poslsh command line as a library: apps/poslsh.cpp is its main(), and the
// fuzz targets drive the same code. One CLI11 app holds every subcommand (the
// built-in ones of apps/*_command.cpp, and each registered experiment and
// bench); parse() applies what the CLI adds before CLI11 reads the arguments
// (runner/cli_extensions.h: --config anywhere on the line, ranges in numeric
// list options, TOML syntax CLI11 would misread); describe() words a parse
// error by the option it is about; run_cli() maps every outcome to the
// documented exit codes (0 ok, 1 a check or run failed, 2 unusable input,
// 3 internal error, 130 interrupted; see run_reporting_errors).
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "apps/run_cli.h"
#include "runner/command.h"

namespace poslsh {

class CliApp {
 public:
  CliApp();
  CliApp(const CliApp&) = delete;  // the options are bound to state the actions own
  CliApp& operator=(const CliApp&) = delete;

  CLI::App& app() { return app_; }

  // Parses argv (argv[0] is the program) as the CLI does. Throws what CLI11
  // throws (CLI::ParseError and its help and version requests) and UsageError
  // for a --config file CLI11 would misread.
  void parse(int argc, char** argv);

  // A parse error as the CLI reports it: naming the option and what it
  // accepts, or the unknown subcommand, with the closest valid name.
  std::string describe(const CLI::ParseError& e, int argc, char** argv);

  // Runs the action of the subcommand the last parse chose; its exit code.
  int run_chosen();

 private:
  CLI::App app_{"poslsh: numerical verification of positional LSH for ALiBi attention"};
  CLI::App* bench_ = nullptr;
  std::map<CLI::App*, Action> actions_;  // by subcommand, bench's included
};

}  // namespace poslsh
