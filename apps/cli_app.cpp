#include "apps/cli_app.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "apps/commands.h"
#include "experiments/experiment.h"
#include "runner/cli_errors.h"
#include "runner/cli_extensions.h"
#include "runner/text_format.h"
#include "runner/version.h"

namespace poslsh {

CliApp::CliApp() {
  app_.set_version_flag("--version", std::string("poslsh ") + kVersion + " (" + git_commit() + ")");
  app_.set_config("--config", "", "TOML file; section [subcommand] sets that subcommand's options");
  app_.allow_config_extras(false);
  app_.require_subcommand(1);
  const auto all = [](CLI::App*) { return true; };
  const auto add = [&](CLI::App& parent, Action action) {
    actions_[parent.get_subcommands(all).back()] = std::move(action);
  };
  add(app_, add_sample_command(app_));
  add(app_, add_check_command(app_));
  add(app_, add_verify_command(app_));
  add(app_, add_merge_command(app_));
  add(app_, add_reproduce_command(app_));
  add(app_, add_rerun_command(app_));
  bench_ = app_.add_subcommand("bench", "Speed benchmarks (ratios measured side by side)");
  bench_->require_subcommand(1);
  for (const auto& e : experiments()) {
    if (e.add_command) add(app_, e.add_command(app_));
    if (e.add_bench) add(*bench_, e.add_bench(*bench_));
  }
  enable_list_ranges(app_);
}

void CliApp::parse(int argc, char** argv) { parse_command_line(app_, argc, argv); }

std::string CliApp::describe(const CLI::ParseError& e, int argc, char** argv) {
  return describe_parse_error(e, app_, argc, argv);
}

int CliApp::run_chosen() {
  CLI::App* chosen = app_.get_subcommands().front();
  const Action& action = actions_.at(chosen == bench_ ? bench_->get_subcommands().front() : chosen);
  return run_reporting_errors("poslsh " + chosen->get_name(), action);
}

int run_cli(int argc, char** argv) {
  CliApp cli;
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.app().exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli.app().exit(e);
  } catch (const CLI::CallForVersion& e) {
    return cli.app().exit(e);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "poslsh: error: %s\n", single_line(e.what()).c_str());
    return 2;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "poslsh: error: %s\n", cli.describe(e, argc, argv).c_str());
    return 2;
  }
  return cli.run_chosen();
}

}  // namespace poslsh
