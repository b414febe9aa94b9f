#include "runner/external_experiment.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "runner/atomic_file.h"
#include "runner/cli_extensions.h"
#include "runner/text_format.h"

namespace poslsh {

namespace fs = std::filesystem;

namespace {

// Storage for the declared options' texts: CLI11 binds an option to a
// variable, the program parses the texts itself.
struct OptionTexts {
  std::vector<std::string> scalars;
  std::vector<std::vector<std::string>> lists;
};

nlohmann::json parsed(const std::string& text, const std::string& what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::logic_error(fmt::format("external experiment: unreadable {} ({})", what, e.what()));
  }
}

void declare_one(CLI::App& command, const nlohmann::json& o, std::string& scalar,
                 std::vector<std::string>& list,
                 std::vector<const CLI::Option*>& declared) {
  const std::string name = o.at("name"), help = o.at("help"), type = o.at("type");
  CLI::Option* opt = o.at("list") ? command.add_option(name, list, help)->delimiter(',')
                                  : command.add_option(name, scalar, help);
  opt->type_name(type);
  if (o.contains("default") && !o.at("default").is_null()) opt->default_str(o.at("default"));
  declared.push_back(opt);
}

CsvRow row_of(const nlohmann::json& values) {
  CsvRow row;
  for (const auto& v : values) {
    if (v.is_null())
      row.emplace_back();
    else if (v.is_number_integer())
      row.push_back(v.dump());
    else if (v.is_number())
      row.push_back(format_value(v.get<double>()));
    else
      row.push_back(v.get<std::string>());
  }
  return row;
}

}  // namespace

// A declaration not yet made. The command's preparse callback owns it (so it
// lives as long as the command); the registry below only points to it, so a
// destroyed command's entry expires instead of reaching whatever command is
// later built at its address.
struct PendingDeclaration {
  std::function<void()> declare;
  bool done = false;
};

std::map<const CLI::App*, std::weak_ptr<PendingDeclaration>>& pending_declarations() {
  static std::map<const CLI::App*, std::weak_ptr<PendingDeclaration>> pending;
  return pending;
}

std::shared_ptr<PendingDeclaration> pending_for(const CLI::App& command) {
  auto& pending = pending_declarations();
  const auto it = pending.find(&command);
  if (it == pending.end()) return nullptr;
  auto declaration = it->second.lock();
  if (!declaration || declaration->done) {
    pending.erase(it);
    return nullptr;
  }
  return declaration;
}

void declare_external_options(CLI::App& command, std::function<std::string()> table,
                              std::function<void(CLI::App&)> after,
                              std::shared_ptr<std::vector<const CLI::Option*>> declared) {
  // The texts the options write to, kept by the declaration.
  auto texts = std::make_shared<OptionTexts>();
  auto declaration = std::make_shared<PendingDeclaration>();
  declaration->declare = [&command, table, after, declared, texts] {
    const nlohmann::json options = parsed(table(), "options table");
    // Sized once: the options bind to these elements' addresses.
    texts->scalars.resize(options.size());
    texts->lists.resize(options.size());
    for (std::size_t i = 0; i < options.size(); ++i)
      declare_one(command, options[i], texts->scalars[i], texts->lists[i], *declared);
    if (after) after(command);
    document_list_ranges(command);
  };
  pending_declarations()[&command] = declaration;
  command.preparse_callback(
      [&command, declaration](std::size_t) { declare_external_options_now(command); });
}

bool external_options_pending(const CLI::App& command) { return pending_for(command) != nullptr; }

void declare_external_options_now(CLI::App& command) {
  const auto declaration = pending_for(command);
  if (!declaration) return;
  declaration->done = true;
  pending_declarations().erase(&command);
  declaration->declare();
}

std::string given_options_json(const std::vector<const CLI::Option*>& declared) {
  nlohmann::ordered_json given = nlohmann::ordered_json::object();
  for (const CLI::Option* opt : declared) {
    const std::vector<std::string> values = opt->results();
    if (values.empty()) continue;
    if (opt->get_expected_max() > 1)
      given[opt->get_name()] = values;
    else
      given[opt->get_name()] = values.back();
  }
  return given.dump();
}

CsvRow external_row(const std::string& row_json) {
  return row_of(parsed(row_json, "row"));
}

ExternalExperiment::ExternalExperiment(std::string command, ExternalProgram program)
    : command_(std::move(command)),
      program_(std::move(program)),
      declared_(std::make_shared<std::vector<const CLI::Option*>>()) {}

void ExternalExperiment::declare_options(CLI::App& command) {
  const auto call = program_.call;
  const std::string name = command_;
  declare_external_options(
      command, [call, name] { return call("options", name); }, program_.declare_own_options,
      declared_);
}

void ExternalExperiment::validate(CLI::App&, const SweepOptions& sweep) {
  require_writable("--out", sweep.out);
  if (program_.prepare) program_.prepare();
  given_ = given_options_json(*declared_);
  const nlohmann::json d = parsed(program_.call("describe", given_), "description");
  columns_ = d.at("columns").get<std::vector<std::string>>();
  timing_columns_ = d.at("timing_columns").get<std::vector<std::string>>();
  for (const auto& c : d.at("cells")) {
    labels_.push_back(c.at("label"));
    costs_.push_back(c.at("cost"));
  }
  seed_ = d.at("seed");
  note_ = d.at("note");
  if (program_.prepare_cells) program_.prepare_cells();
  table_ = sweep.out;
  const fs::path out(sweep.out);
  work_ = (out.parent_path() / (out.stem().string() + ".checkpoints")).string();
  progress_ = !sweep.quiet;
  if (!sweep.resume) fs::remove_all(work_);
}

std::vector<std::int64_t> ExternalExperiment::cells() const {
  std::vector<std::int64_t> cells(labels_.size());
  for (std::size_t k = 0; k < cells.size(); ++k) cells[k] = static_cast<std::int64_t>(k);
  return cells;
}

std::vector<CsvRow> ExternalExperiment::rows(const std::int64_t& cell) const {
  // Made by the first cell, not up front: a run the sweep refuses (a bad
  // --shard, too little memory) leaves nothing behind.
  fs::create_directories(work_);
  const nlohmann::ordered_json request = {{"given", parsed(given_, "options")},
                                          {"cell", cell},
                                          {"table", table_},
                                          {"work", work_},
                                          {"progress", progress_}};
  const nlohmann::json result = parsed(program_.call("cell", request.dump()), "cell result");
  std::vector<CsvRow> rows;
  for (const auto& r : result.at("rows")) rows.push_back(row_of(r));
  return rows;
}

std::string ExternalExperiment::label(const std::int64_t& cell) const {
  return labels_.at(static_cast<std::size_t>(cell));
}

double ExternalExperiment::cost(const std::int64_t& cell) const {
  return costs_.at(static_cast<std::size_t>(cell));
}

void ExternalExperiment::finished() const { fs::remove_all(work_); }

}  // namespace poslsh
