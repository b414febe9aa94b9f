// The poslsh command-line tool: builds the subcommands, parses, and maps every
// outcome to the documented exit codes (0 ok, 1 a check or run failed,
// 2 unusable input, 3 internal error, 130 interrupted; see run_reporting_errors).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"
#include "experiment.h"
#include "version.h"

namespace {

// CLI11 (2.1) reads --config only before the subcommand name; users write it
// anywhere, e.g. `poslsh convergence --config c.toml`, so move it to the front.
std::vector<std::string> hoist_config(int argc, char** argv) {
  std::vector<std::string> front, rest;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) {
      front.push_back(a);
      front.push_back(argv[++i]);
    } else if (a.rfind("--config=", 0) == 0) {
      front.push_back(a);
    } else {
      rest.push_back(a);
    }
  }
  front.insert(front.end(), rest.begin(), rest.end());
  // CLI11 parses a reversed vector of arguments.
  return {front.rbegin(), front.rend()};
}

// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// " (did you mean X?)" for the candidate closest to `word`, if close enough.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates,
                       const std::string& prefix = "") {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best.empty() ? "" : fmt::format(" (did you mean {}{}?)", prefix, best);
}

std::vector<std::string> option_names(const CLI::App* command) {
  std::vector<std::string> names;
  if (!command) return names;
  for (const CLI::Option* o : command->get_options()) {
    const std::string n = o->get_single_name();
    if (!n.empty() && !o->get_positional()) names.push_back(n);
  }
  return names;
}

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// CLI11's parse errors, reworded to name the option and what it accepts, with
// the closest valid name when a name was misspelled.
std::string describe(const CLI::ParseError& e, CLI::App& app, int argc, char** argv) {
  const std::string what = poslsh::single_line(e.what());
  const std::string name = e.get_name();
  CLI::App* command = nullptr;
  if (argc > 1 && argv[1][0] != '-')
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      if (sub->check_name(argv[1])) command = sub;
  if (name == "ConfigError") {
    const std::string prefix = "INI was not able to parse ";
    if (what.rfind(prefix, 0) == 0) {
      const std::string key = what.substr(prefix.size());
      const auto dot = key.find('.');
      std::string hint;
      if (dot != std::string::npos) {
        const std::string section = key.substr(0, dot), item = key.substr(dot + 1);
        CLI::App* sub = nullptr;
        for (CLI::App* c : app.get_subcommands([](CLI::App*) { return true; }))
          if (c->get_name() == section) sub = c;
        hint = sub ? suggestion(item, option_names(sub))
                   : suggestion(section, subcommand_names(app), "section [");
        if (!sub && !hint.empty()) hint.insert(hint.size() - 2, "]");
      }
      return fmt::format(
          "--config: unknown key '{}'{} (sections are subcommand names; keys are their option "
          "names, see poslsh <subcommand> --help)",
          key, hint);
    }
  }
  // (An error raised inside a subcommand carries the subcommand's name, so
  // the kind is read from the exit code.)
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::ExtrasError) && command) {
    // "The following arguments were not expected: 8 --sigam": name the
    // subcommand and suggest the closest option.
    std::string hints;
    std::stringstream ss(what.substr(what.find(':') + 1));
    for (std::string tok; ss >> tok;)
      if (tok.rfind("--", 0) == 0) {
        const std::string opt = tok.substr(2, tok.find('=') - 2);
        hints += fmt::format("; unknown option --{}{}", opt,
                             suggestion(opt, option_names(command), "--"));
      }
    return fmt::format("{}{} (see poslsh {} --help)", what, hints, command->get_name());
  }
  if (name == "FileError") return fmt::format("--config: {}", what);
  if (name == "ConversionError") return what + " (expected a number of the option's type)";
  return what;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"poslsh: numerical verification of positional LSH for ALiBi attention"};
  app.set_version_flag(
      "--version", std::string("poslsh ") + poslsh::kVersion + " (" + poslsh::git_commit() + ")");
  app.set_config("--config", "", "TOML file; section [subcommand] sets that subcommand's options");
  app.allow_config_extras(false);
  app.require_subcommand(1);

  std::map<CLI::App*, poslsh::Action> actions;
  const auto all = [](CLI::App*) { return true; };
  auto add = [&](poslsh::Action action) {
    actions[app.get_subcommands(all).back()] = std::move(action);
  };
  add(poslsh::add_sample_command(app));
  add(poslsh::add_check_command(app));
  add(poslsh::add_verify_command(app));
  add(poslsh::add_merge_command(app));
  add(poslsh::add_reproduce_command(app));
  add(poslsh::add_rerun_command(app));
  auto* bench = app.add_subcommand("bench", "Speed benchmarks (ratios measured side by side)");
  bench->require_subcommand(1);
  std::map<CLI::App*, poslsh::Action> bench_actions;
  for (const auto& e : poslsh::experiments()) {
    if (e.add_command) add(e.add_command(app));
    if (e.add_bench) {
      poslsh::Action a = e.add_bench(*bench);
      bench_actions[bench->get_subcommands(all).back()] = std::move(a);
    }
  }

  try {
    std::vector<std::string> args = hoist_config(argc, argv);
    // The vector is reversed (see hoist_config): a path precedes its --config.
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--config" && i > 0) poslsh::check_config_syntax(args[i - 1]);
      if (args[i].rfind("--config=", 0) == 0) poslsh::check_config_syntax(args[i].substr(9));
    }
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const poslsh::UsageError& e) {
    std::fprintf(stderr, "poslsh: error: %s\n", poslsh::single_line(e.what()).c_str());
    return 2;
  } catch (const CLI::ParseError& e) {
    std::string message = describe(e, app, argc, argv);
    if (e.get_name() == "RequiredError" && argc > 1 && argv[1][0] != '-' &&
        app.get_subcommands([&](CLI::App* sub) { return sub->check_name(argv[1]); }).empty()) {
      std::string accepted;
      for (const CLI::App* sub : app.get_subcommands(all))
        accepted += (accepted.empty() ? "" : ", ") + sub->get_name();
      message = fmt::format("unknown subcommand '{}'{} (accepted: {})", argv[1],
                            suggestion(argv[1], subcommand_names(app)), accepted);
    }
    std::fprintf(stderr, "poslsh: error: %s\n", message.c_str());
    return 2;
  }

  CLI::App* chosen = app.get_subcommands().front();
  poslsh::Action action;
  if (chosen == bench)
    action = bench_actions.at(bench->get_subcommands().front());
  else
    action = actions.at(chosen);
  const std::string who = "poslsh " + chosen->get_name();
  return poslsh::run_reporting_errors(who, action);
}
