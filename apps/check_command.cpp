// `poslsh check FILE.csv...`: recognise each table's experiment by its columns
// and run its theorem checks. Exit 0: all pass; 1: a check failed; 2: unusable
// input; 5 (--strict only): a theorem family had no line that could decide.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "experiments/check_file.h"
#include "experiments/checks/check_tally.h"
#include "runner/cli_common.h"

namespace poslsh {

Action add_check_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto strict = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("check", "Run the theorem checks on experiment CSV tables");
  cmd->add_option("files", *files, "CSV tables written by poslsh experiments")->required();
  cmd->add_flag("--strict", *strict,
                "Exit 5 when a theorem family has lines that could not decide and none that did "
                "(too few trials or values of s), as a CI job should");
  return [files, strict] {
    std::vector<CheckReport> reports;
    // An unusable file is an InputError (exit 2, before anything is printed);
    // anything else a checker throws is a bug and reaches run_reporting_errors as it is.
    for (const auto& f : *files)
      // Bonferroni over files: the whole run's false-alarm rate is kCheckFamilyAlpha.
      reports.push_back(check_file(f, kCheckFamilyAlpha / static_cast<double>(files->size())));
    CheckTally tally;
    for (std::size_t i = 0; i < reports.size(); ++i) {
      fmt::print("# {} ({})\n", (*files)[i], reports[i].experiment);
      tally.scope = (*files)[i];
      print_outcomes(reports[i].outcomes, tally);
    }
    print_tally(tally);
    if (tally.failed) return 1;
    return *strict ? strict_exit_code(tally, "poslsh check") : 0;
  };
}

}  // namespace poslsh
