// The values a config file gives one option of a subcommand, read by the
// CLI's own config parsing, so that a test of a committed config checks what
// `poslsh` would run, not what a second TOML reader makes of the file.
#pragma once

#include <string>
#include <vector>

#include "apps/cli_app.h"

namespace poslsh::testing {

// `config` is a path; the output path is one nothing may write to, so a
// parse that went on to run would fail loudly. An option the file leaves
// out gives its default, or nothing where it has none.
inline std::vector<std::string> config_values(const std::string& config,
                                              const std::string& subcommand,
                                              const std::string& option) {
  CliApp cli;
  std::vector<std::string> args = {"poslsh", subcommand, "--config",
                                   config,   "--out",    "/nonexistent/config_values.csv"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  cli.parse(static_cast<int>(argv.size()), argv.data());
  const CLI::Option* o = cli.app().get_subcommand(subcommand)->get_option("--" + option);
  std::vector<std::string> values = o->results();
  if (values.empty() && !o->get_default_str().empty()) values = {o->get_default_str()};
  return values;
}

}  // namespace poslsh::testing
