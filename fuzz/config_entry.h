// fuzz_config: --config TOML through the CLI's own app (apps/cli_app.h),
// its sections found as `poslsh reproduce` finds them
// (runner/config_syntax.h: config_sections).
#pragma once

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "apps/cli_app.h"
#include "entry_common.h"
#include "experiments/experiment.h"
#include "runner/cli_errors.h"
#include "runner/config_syntax.h"
#include "runner/resolved_config.h"

namespace poslsh_fuzz {

struct ConfigResult {
  int tried = 0;            // subcommands the config was parsed for
  int parsed = 0;           // parses that succeeded
  std::string first_error;  // the first CLI::ParseError, for diagnosis
};

// A per-process scratch file: CLI11 reads --config from a path.
inline std::string config_scratch_path() {
  return (std::filesystem::temp_directory_path() /
          ("poslsh-fuzz-config-" + std::to_string(::getpid()) + ".toml"))
      .string();
}
inline void remove_config_scratch() { std::remove(config_scratch_path().c_str()); }

// `poslsh <section> --config FILE --out X.csv` for the first two sections of
// the input that name a subcommand (else the first experiment), as `poslsh
// reproduce` runs them ([bench.attention] -> `bench attention`), parsed exactly
// as run_cli() does (CliApp::parse: hoisted --config, expanded ranges) but
// not run (nothing is written), followed by resolved_config() of the chosen
// subcommand: the provenance every experiment derives from its options.
// run_cli() catches only CLI::ParseError and UsageError around parse(): any
// other exception would end the CLI.
inline ConfigResult fuzz_config(const std::uint8_t* data, std::size_t size) {
  const std::string toml(reinterpret_cast<const char*>(data), size);
  const std::string path = config_scratch_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(toml.data(), static_cast<std::streamsize>(toml.size()));
    if (!out) invariant_failed("cannot write the scratch config " + path);
  }
  // Building the app is most of the cost of a run: only sections that name
  // a subcommand, at most two of them.
  static const std::set<std::string> subcommands = [] {
    std::set<std::string> names;
    poslsh::CliApp cli;
    for (CLI::App* sub : cli.app().get_subcommands([](CLI::App*) { return true; })) {
      names.insert(sub->get_name());
      for (CLI::App* nested : sub->get_subcommands([](CLI::App*) { return true; }))
        names.insert(sub->get_name() + "." + nested->get_name());
    }
    return names;
  }();
  std::vector<std::string> wanted;
  for (const auto& s : poslsh::config_sections(toml)) {
    if (!subcommands.count(s) || std::find(wanted.begin(), wanted.end(), s) != wanted.end())
      continue;
    wanted.push_back(s);
    if (wanted.size() == 2) break;
  }
  if (wanted.empty()) wanted.push_back(poslsh::experiments().front().name);
  ConfigResult r;
  for (const auto& section : wanted) {
    // The command line a user types: poslsh [bench] NAME --config FILE --out X.csv
    std::vector<std::string> words = {"poslsh"};
    for (std::size_t begin = 0;;) {  // "bench.attention" -> bench attention
      const auto dot = section.find('.', begin);
      words.push_back(section.substr(begin, dot - begin));
      if (dot == std::string::npos) break;
      begin = dot + 1;
    }
    words.insert(words.end(), {"--config", path, "--out", path + ".csv"});
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const int argc = static_cast<int>(words.size());
    poslsh::CliApp cli;
    ++r.tried;
    // From here on as run_cli() does, up to the action, which is not run.
    try {
      cli.parse(argc, argv.data());
    } catch (const poslsh::UsageError& e) {
      if (r.first_error.empty()) r.first_error = section + ": " + e.what();
      continue;
    } catch (const CLI::ParseError& e) {
      const std::string message = cli.describe(e, argc, argv.data());
      if (r.first_error.empty()) r.first_error = section + ": " + e.get_name() + ": " + message;
      continue;
    }
    ++r.parsed;
    CLI::App* chosen = cli.app().get_subcommands().front();
    while (!chosen->get_subcommands().empty()) chosen = chosen->get_subcommands().front();
    (void)poslsh::resolved_config(*chosen);
  }
  return r;
}

}  // namespace poslsh_fuzz
