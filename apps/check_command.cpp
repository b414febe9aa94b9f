// `poslsh check FILE.csv...`: recognise each table's experiment by its columns
// and run its theorem checks. Exit 0: all pass; 1: a check failed; 2: unusable input.
#include <fmt/format.h>

#include <memory>

#include "cli_common.h"
#include "commands.h"

namespace poslsh {

Action add_check_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("check", "Run the theorem checks on experiment CSV tables");
  cmd->add_option("files", *files, "CSV tables written by poslsh experiments")->required();
  return [files] {
    std::vector<CheckReport> reports;
    for (const auto& f : *files) {
      try {
        reports.push_back(check_file(f));
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    }
    int failed = 0, passed = 0, na = 0;
    for (std::size_t i = 0; i < reports.size(); ++i) {
      fmt::print("# {} ({})\n", (*files)[i], reports[i].experiment);
      for (const auto& c : reports[i].outcomes) {
        fmt::print("{:<4}  {}: {}\n", verdict_name(c.verdict), c.check, c.detail);
        (c.verdict == Verdict::kFail ? failed : c.verdict == Verdict::kPass ? passed : na)++;
      }
    }
    fmt::print("checks: {} passed, {} failed, {} not applicable\n", passed, failed, na);
    return failed ? 1 : 0;
  };
}

}  // namespace poslsh
