#include "experiments/experiment.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include "runner/rate_interval.h"

namespace poslsh {

namespace {
std::vector<ExperimentRegistration>& registry() {
  static std::vector<ExperimentRegistration> r;
  return r;
}
}  // namespace

bool register_experiment(ExperimentRegistration experiment) {
  auto& r = registry();
  r.push_back(std::move(experiment));
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return true;
}

const std::vector<ExperimentRegistration>& experiments() { return registry(); }

namespace {

// A TOML string literal.
std::string toml_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The value as TOML: quoted for text options, as given otherwise.
std::string toml_value(const CLI::Option& opt, const std::string& value) {
  return opt.get_type_name().find("TEXT") != std::string::npos ? toml_quote(value) : value;
}

}  // namespace

std::string resolved_config(const CLI::App& command) {
  static const std::set<std::string> runner = {
      "out",        "threads", "resume", "shard",       "quiet", "no-timing",
      "max-memory", "help",    "config", "save-outputs"};  // (attention: where outputs go; they do
                                                           // not change the table)
  // Options another one replaces: recording them would make the config
  // contradict itself when fed back (--alibi-heads replaces --sigma; --qkv DIR
  // gives n and d from its files).
  std::set<std::string> replaced;
  const auto given = [&](const std::string& name, const std::string& off) {
    const CLI::Option* o = command.get_option_no_throw("--" + name);
    return o && o->count() > 0 && !o->results().empty() && o->results().front() != off;
  };
  if (given("alibi-heads", "0")) replaced.insert("sigma");
  // A sound run's sidecar is the one it had before --plant-defect existed.
  if (!given("plant-defect", "sound")) replaced.insert("plant-defect");
  if (given("qkv", "synthetic")) replaced.insert({"n", "d", "qk-scale"});  // synthetic data only
  // --band-tol applies to attention's band estimator only (the default
  // estimators do not include it).
  if (const CLI::Option* e = command.get_option_no_throw("--estimator")) {
    const auto& chosen = e->results();
    if (std::find(chosen.begin(), chosen.end(), "band") == chosen.end())
      replaced.insert("band-tol");
  }
  std::ostringstream out;
  for (const CLI::Option* opt : command.get_options()) {
    const std::string name = opt->get_single_name();
    if (name.empty() || runner.count(name) || replaced.count(name) || opt->get_positional())
      continue;
    std::vector<std::string> values = opt->results();
    if (values.empty()) {
      std::string def = opt->get_default_str();
      if (def.empty()) continue;
      // A list's default prints as "[a,b]": its elements, not one element.
      if (def.size() >= 2 && def.front() == '[' && def.back() == ']') {
        values.clear();
        std::stringstream ss(def.substr(1, def.size() - 2));
        for (std::string item; std::getline(ss, item, ',');) values.push_back(item);
      } else {
        values = {def};
      }
    }
    if (name == "qkv" && values.size() == 1 && values[0] != "synthetic")
      values[0] = std::filesystem::absolute(values[0]).lexically_normal().string();
    out << name << " = ";
    if (values.size() == 1 && opt->get_expected_max() <= 1) {
      out << toml_value(*opt, values[0]);
    } else {
      out << "[";
      for (std::size_t i = 0; i < values.size(); ++i)
        out << (i ? ", " : "") << toml_value(*opt, values[i]);
      out << "]";
    }
    out << "\n";
  }
  return out.str();
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kInfo:
      return "info";
    case Verdict::kWarning:
      return "WARN";
    default:
      return "n/a";
  }
}

Verdict rate_verdict(const RateInterval& ri) {
  return ri.fails ? Verdict::kFail : ri.testable ? Verdict::kPass : Verdict::kInfo;
}

void print_outcomes(const std::vector<CheckOutcome>& outcomes, CheckTally& tally) {
  for (const auto& c : outcomes) {
    fmt::print("{:<4}  {}: {}\n", verdict_name(c.verdict), c.check, c.detail);
    (c.verdict == Verdict::kFail      ? tally.failed
     : c.verdict == Verdict::kPass    ? tally.passed
     : c.verdict == Verdict::kInfo    ? tally.info
     : c.verdict == Verdict::kWarning ? tally.warnings
                                      : tally.not_applicable)++;
  }
}

void print_tally(const CheckTally& t) {
  fmt::print(
      "checks: {} passed, {} failed, {} not applicable, {} info{} (family-wise false-alarm rate "
      "of this run <= {:g} on a sound sampler)\n",
      t.passed, t.failed, t.not_applicable, t.info,
      t.warnings ? fmt::format(", {} WARN", t.warnings) : "", kCheckFamilyAlpha);
}

CheckReport check_file(const std::string& path, double alpha) {
  const CsvTable table = CsvTable::read(path);
  if (table.size() == 0)
    throw InputError(
        fmt::format("'{}' has a header and no rows: nothing to check (an interrupted run keeps "
                    "its rows in <out>.partial)",
                    path));
  const ExperimentRegistration* best = nullptr;
  for (const auto& e : experiments()) {
    if (!e.checker.run || e.checker.required_columns.empty()) continue;
    const bool fits =
        std::all_of(e.checker.required_columns.begin(), e.checker.required_columns.end(),
                    [&](const std::string& c) { return table.has_column(c); });
    if (fits &&
        (!best || e.checker.required_columns.size() > best->checker.required_columns.size()))
      best = &e;
  }
  if (!best)
    throw InputError(fmt::format(
        "'{}': no experiment recognises its columns (expected a convergence, blocksize or "
        "attention table)",
        path));
  try {
    return {best->name, best->checker.run(table, alpha)};
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("'{}' ({} table) is unusable: {}", path, best->name, e.what()));
  }
}

}  // namespace poslsh
