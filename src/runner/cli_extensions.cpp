#include "runner/cli_extensions.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "runner/config_syntax.h"
#include "runner/external_experiment.h"
#include "runner/list_ranges.h"
#include "runner/text_format.h"

namespace poslsh {

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

// ---- Ranges in numeric list options (src/runner/list_ranges.h) -------------------
// CLI11 converts option values itself, so a range is expanded into its values
// before CLI11 sees it: on the command line (expand_list_ranges) and in a
// --config file (RangeConfig). Both find the option the way CLI11 does and
// expand only numeric list options (a vector of integers or reals): a range
// given to any other option (a path holding ':', a scalar) is left alone.

std::optional<RangeKind> range_kind(const CLI::Option* o) {
  if (o == nullptr || o->get_items_expected_max() <= 1 || o->get_positional()) return std::nullopt;
  const std::string type = o->get_type_name();
  if (type.find("FLOAT") != std::string::npos) return RangeKind::kReal;
  if (type.find("INT") != std::string::npos) return RangeKind::kInteger;
  return std::nullopt;
}

CLI::App* find_subcommand(CLI::App* app, const std::string& name) {
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; }))
    if (sub->check_name(name)) return sub;
  return nullptr;
}

// The option `name` ("--s", "-s") of `app` or, as CLI11 falls through, of a parent.
const CLI::Option* find_option(const CLI::App* app, const std::string& name) {
  for (; app != nullptr; app = app->get_parent())
    if (const CLI::Option* o = app->get_option_no_throw(name)) return o;
  return nullptr;
}

// "--s": the name error messages and --help use.
std::string option_label(const CLI::Option* o) {
  if (!o->get_lnames().empty()) return "--" + o->get_lnames().front();
  if (!o->get_snames().empty()) return "-" + o->get_snames().front();
  return o->get_name();
}

// `value` with every range among its delimiter-separated items expanded.
std::vector<std::string> expand_items(const std::string& value, const CLI::Option* o,
                                      RangeKind kind) {
  std::vector<std::string> items;
  const char delimiter = o->get_delimiter();
  std::vector<std::string> parts;
  if (delimiter == '\0') {
    parts = {value};
  } else {
    std::size_t begin = 0;
    for (std::size_t end; (end = value.find(delimiter, begin)) != std::string::npos;
         begin = end + 1)
      parts.push_back(value.substr(begin, end - begin));
    parts.push_back(value.substr(begin));
  }
  const std::string option = option_label(o);
  for (const std::string& part : parts) {
    if (!is_range(part)) {
      items.push_back(part);
      continue;
    }
    for (std::string& v : expand_range_text(part, kind, option)) items.push_back(std::move(v));
  }
  return items;
}

// One argument holding the items, joined by the option's delimiter (else as
// separate arguments).
void append_items(std::vector<std::string>& out, const std::string& prefix,
                  const std::vector<std::string>& items, const CLI::Option* o) {
  const char delimiter = o->get_delimiter();
  if (delimiter == '\0') {
    if (!prefix.empty()) out.push_back(prefix.substr(0, prefix.size() - 1));  // "--s=" -> "--s"
    out.insert(out.end(), items.begin(), items.end());
    return;
  }
  std::string joined = prefix;
  for (std::size_t i = 0; i < items.size(); ++i)
    joined += (i ? std::string(1, delimiter) : "") + items[i];
  out.push_back(std::move(joined));
}

// Expands the ranges of numeric list options in `args` (in CLI11's reversed
// order, as hoist_config returns them), following the subcommands named on
// the way as CLI11 does: `--s 1:8:x2`, `--s=1:8:x2`, `--s 1,16:64:x2`.
void expand_list_ranges(std::vector<std::string>& args, CLI::App& app) {
  std::vector<std::string> in(args.rbegin(), args.rend()), out;
  CLI::App* current = &app;
  const CLI::Option* list = nullptr;  // the numeric list option taking values
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::string& a = in[i];
    if (a == "--") {
      out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(i), in.end());
      break;
    }
    const bool option =
        a.rfind("--", 0) == 0 || (a.size() > 1 && a[0] == '-' && !(list && is_range(a)) &&
                                  !std::isdigit(static_cast<unsigned char>(a[1])) && a[1] != '.');
    if (option) {
      list = nullptr;
      const auto eq = a.find('=');
      const std::string name = a.substr(0, eq);
      const CLI::Option* o = find_option(current, name);
      const auto kind = range_kind(o);
      if (kind && eq != std::string::npos) {
        append_items(out, name + "=", expand_items(a.substr(eq + 1), o, *kind), o);
        continue;
      }
      if (kind) list = o;
      out.push_back(a);
      continue;
    }
    if (CLI::App* sub = find_subcommand(current, a)) {
      declare_external_options_now(*sub);
      current = sub;
      list = nullptr;
      out.push_back(a);
      continue;
    }
    if (list && is_range(a)) {
      append_items(out, "", expand_items(a, list, *range_kind(list)), list);
      continue;
    }
    out.push_back(a);
  }
  args.assign(out.rbegin(), out.rend());
}

// The TOML reader of --config, expanding ranges given as strings: s = "1:256:x2"
// (or in an array: s = ["1:8:x2", 64]); unquoted, 1:256:x2 is not TOML and
// check_config_syntax refuses it first.
class RangeConfig : public CLI::ConfigTOML {
 public:
  explicit RangeConfig(CLI::App& app) : app_(app) {}
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    std::vector<CLI::ConfigItem> items = CLI::ConfigTOML::from_config(input);
    // The section of a command in another process that is not the one run
    // has no options yet (they are declared when the command is chosen):
    // its keys are that command's to check, when it runs.
    std::erase_if(items, [this](const CLI::ConfigItem& item) {
      CLI::App* section = section_of(item);
      return section != nullptr && external_options_pending(*section);
    });
    for (CLI::ConfigItem& item : items) {
      CLI::App* section = section_of(item);
      if (section == nullptr) continue;
      // Looked up as CLI11's _parse_single_config does.
      const CLI::Option* o = section->get_option_no_throw("--" + item.name);
      if (!o && item.name.size() == 1) o = section->get_option_no_throw("-" + item.name);
      if (!o) o = section->get_option_no_throw(item.name);
      const auto kind = range_kind(o);
      if (!kind) continue;
      std::vector<std::string> inputs;
      for (const std::string& value : item.inputs)
        for (std::string& v : expand_items(value, o, *kind)) inputs.push_back(std::move(v));
      item.inputs = std::move(inputs);
    }
    return items;
  }

 private:
  CLI::App* section_of(const CLI::ConfigItem& item) const {
    CLI::App* section = &app_;
    for (const std::string& parent : item.parents)
      if (section) section = find_subcommand(section, parent);
    return section;
  }

  CLI::App& app_;
};

}  // namespace

// The --help footer of each subcommand with numeric list options, naming them.
void document_list_ranges(CLI::App& command) {
  std::string names, key;  // key: the first list's name, for the config example
  for (const CLI::Option* o : command.get_options())
    if (range_kind(o)) {
      if (names.empty()) key = o->get_single_name();
      names += (names.empty() ? "" : ", ") + option_label(o);
    }
  if (!names.empty()) {
    // The first line, wrapped at 80 columns (power has nine lists).
    std::string first, line;
    std::stringstream words("Lists (" + names + ") take comma-separated values and ranges:");
    for (std::string word; words >> word;) {
      if (!line.empty() && line.size() + 1 + word.size() > 79) {
        first += line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
    }
    first += line + "\n";
    const std::string old = command.get_footer();
    command.footer((old.empty() ? "" : old + "\n\n") + first +
                   "  A:B:xK  A, A*K, A*K^2, ... up to B   1:256:x2 is 1,2,4,...,256\n"
                   "  A:B:+K  A, A+K, A+2K, ... up to B    1024:4096:+1024 is 1024,2048,3072,4096\n"
                   "Integer lists: integer A, B, K; A >= 1 and K >= 2 with x, K >= 1 with +.\n"
                   "Real lists: decimal A, B, K, stepped exactly (0:1:+0.1 is 0,0.1,...,1);\n"
                   "A > 0 and K > 1 with x, K > 0 with +. At most " +
                   std::to_string(kMaxRangeValues) +
                   " values.\nIn a --config file, quote a range: " + key + " = \"1:256:x2\".");
  }
  for (CLI::App* sub : command.get_subcommands([](CLI::App*) { return true; }))
    document_list_ranges(*sub);
}

namespace {

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

// The (sub)command the command line names: argv's leading words that are
// subcommand names ("bench attention"), followed from the top.
std::pair<CLI::App*, std::string> named_command(CLI::App& app, int argc, char** argv) {
  CLI::App* command = &app;
  std::string path;
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    CLI::App* next = nullptr;
    for (CLI::App* sub : command->get_subcommands([](CLI::App*) { return true; }))
      if (sub->check_name(argv[i])) next = sub;
    if (!next) break;
    command = next;
    path += " " + next->get_name();
  }
  return {command, path};
}

// The options `command` requires and was not given, in the order it declares
// them; CLI11 names only the first it finds missing.
std::vector<std::string> missing_required(const CLI::App* command) {
  std::vector<std::string> missing;
  for (const CLI::Option* o : command->get_options())
    if (o->get_required() && o->count() == 0) missing.push_back(o->get_name());
  return missing;
}

// CLI11's parse errors, reworded to name the option and what it accepts, with
// the closest valid name when a name was misspelled.
std::string reworded_parse_error(const CLI::ParseError& e, CLI::App& app, int argc, char** argv) {
  const std::string what = single_line(e.what());
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
  if (name == "RequiredError")
    if (const auto [named, path] = named_command(app, argc, argv); !path.empty())
      if (const auto missing = missing_required(named); !missing.empty())
        return fmt::format("{}: missing required option{} {} (see poslsh{} --help)",
                           path.substr(1), missing.size() == 1 ? "" : "s",
                           fmt::join(missing, ", "), path);
  if (name == "FileError") return fmt::format("--config: {}", what);
  if (name == "ConversionError") return what + " (expected a number of the option's type)";
  return what;
}

}  // namespace

void enable_list_ranges(CLI::App& app) {
  app.config_formatter(std::make_shared<RangeConfig>(app));
  document_list_ranges(app);
}

void parse_command_line(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args = hoist_config(argc, argv);
  expand_list_ranges(args, app);
  // The vector is reversed (see hoist_config): a path precedes its --config.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--config" && i > 0) check_config_syntax(args[i - 1]);
    if (args[i].rfind("--config=", 0) == 0) check_config_syntax(args[i].substr(9));
  }
  app.parse(args);
}

std::string describe_parse_error(const CLI::ParseError& e, CLI::App& app, int argc, char** argv) {
  const auto all = [](CLI::App*) { return true; };
  if (e.get_name() == "RequiredError" && argc > 1 && argv[1][0] != '-' &&
      app.get_subcommands([&](CLI::App* sub) { return sub->check_name(argv[1]); }).empty()) {
    std::string accepted;
    for (const CLI::App* sub : app.get_subcommands(all))
      accepted += (accepted.empty() ? "" : ", ") + sub->get_name();
    return fmt::format("unknown subcommand '{}'{} (accepted: {})", argv[1],
                       suggestion(argv[1], subcommand_names(app)), accepted);
  }
  return reworded_parse_error(e, app, argc, argv);
}

}  // namespace poslsh
