#include "runner/resolved_config.h"

#include <CLI/CLI.hpp>
#include <sstream>
#include <vector>

namespace poslsh {

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

// The option's values: the given ones, else its default (a list's default
// prints as "[a,b]": its elements, not one element); none without either.
std::vector<std::string> resolved_values(const CLI::Option& opt) {
  std::vector<std::string> values = opt.results();
  if (!values.empty()) return values;
  const std::string def = opt.get_default_str();
  if (def.empty()) return {};
  if (def.size() >= 2 && def.front() == '[' && def.back() == ']') {
    std::stringstream ss(def.substr(1, def.size() - 2));
    for (std::string item; std::getline(ss, item, ',');) values.push_back(item);
    return values;
  }
  return {def};
}

}  // namespace

bool option_given(const CLI::App& command, const std::string& name, const std::string& off) {
  const CLI::Option* o = command.get_option_no_throw("--" + name);
  return o && o->count() > 0 && !o->results().empty() && o->results().front() != off;
}

std::string resolved_config(const CLI::App& command, const RecordedOptions& recorded) {
  static const std::set<std::string> runner = {
      "out", "threads", "resume", "shard", "quiet", "no-timing", "max-memory", "help", "config"};
  std::ostringstream out;
  for (const CLI::Option* opt : command.get_options()) {
    const std::string name = opt->get_single_name();
    if (name.empty() || runner.count(name) || recorded.omitted.count(name) || opt->get_positional())
      continue;
    std::vector<std::string> values = resolved_values(*opt);
    if (values.empty()) continue;
    if (const auto r = recorded.replaced.find(name);
        r != recorded.replaced.end() && values.size() == 1)
      values[0] = r->second;
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

}  // namespace poslsh
