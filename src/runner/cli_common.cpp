#include "runner/cli_common.h"

#include <fmt/format.h>
#include <poslsh/argument_error.h>
#include <poslsh/input_error.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

namespace poslsh {

namespace {

// Runs one of the core's checks on an option's value, reporting a refusal as
// the option's UsageError.
template <typename Check>
void check_option(const std::string& option, const Check& check) {
  try {
    check();
  } catch (const ArgumentError& e) {
    throw UsageError(e.message_for(option));
  }
}

}  // namespace

std::string flag_for(std::string_view argument) {
  // The one place that knows how the CLI spells the core's arguments. An
  // argument without a flag (a hash's pitch, an internal count) is reported
  // by its meaning.
  static const std::map<std::string_view, std::string_view> kFlags = {
      {"band_tol", "--band-tol"},
      {"batch", "--batch"},
      {"heads", "--alibi-heads"},
      {"max_iterations", "--max-lanczos"},
      {"n", "--n"},
      {"p", "--p"},
      {"points", "--points"},
      {"rel_tol", "--spectral-tol"},
      {"s", "--s"},
      {"sigma", "--sigma"},
      {"starts", "--lanczos-starts"},
      {"threads", "--threads"},
      {"trials", "--trials"},
      {"upper_q", "--upper-q"},
      {"upper_width", "--upper-width"}};
  const auto it = kFlags.find(argument);
  return it == kFlags.end() ? std::string() : std::string(it->second);
}

void require_positive_finite(const std::string& option, double value) {
  check_option(option, [&] { check::positive_finite(option, value); });
}

void require_positive_finite(const std::string& option, const std::vector<double>& values) {
  for (double v : values) require_positive_finite(option, v);
}

void require_at_least(const std::string& option, std::int64_t value, std::int64_t min) {
  check_option(option, [&] { check::at_least(option, value, min); });
}

void require_at_least(const std::string& option, const std::vector<std::int64_t>& values,
                      std::int64_t min) {
  for (auto v : values) require_at_least(option, v, min);
}

void require_open_unit(const std::string& option, double value) {
  check_option(option, [&] { check::open_unit(option, value); });
}

void require_nonempty(const std::string& option, std::size_t size) {
  if (size == 0) throw UsageError(fmt::format("{} needs at least one value", option));
}

Shard parse_shard(const std::string& text) {
  Shard shard;
  const auto slash = text.find('/');
  const auto bad = [&] {
    return UsageError(
        fmt::format("--shard must be K/N with integers 1 <= K <= N (got '{}')", text));
  };
  if (slash == std::string::npos) throw bad();
  try {
    std::size_t used = 0;
    shard.index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw bad();
    const std::string rest = text.substr(slash + 1);
    shard.count = std::stoi(rest, &used);
    if (used != rest.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (shard.index < 1 || shard.count < 1 || shard.index > shard.count) throw bad();
  return shard;
}

std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return fmt::format("{}", value);
}

std::string single_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string cli_message(const std::exception& e) {
  const auto* argument = dynamic_cast<const ArgumentError*>(&e);
  if (!argument) return e.what();
  const std::string flag = flag_for(argument->argument());
  return flag.empty() ? e.what() : argument->message_for(flag);
}

int run_reporting_errors(const std::string& who, const std::function<int()>& action) {
  try {
    return action();
  } catch (const ArgumentError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), single_line(cli_message(e)).c_str());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), single_line(e.what()).c_str());
    return 2;
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), single_line(e.what()).c_str());
    return 2;
  } catch (const std::logic_error& e) {
    std::fprintf(stderr,
                 "%s: internal error: %s (a bug in poslsh, not in your input: please report it "
                 "with the command line and the output of `poslsh --version`)\n",
                 who.c_str(), single_line(e.what()).c_str());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: failed: %s\n", who.c_str(), single_line(e.what()).c_str());
    return 1;
  }
}

namespace {

std::string trim(const std::string& t) {
  const auto b = t.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return t.substr(b, t.find_last_not_of(" \t\r") - b + 1);
}

bool is_name(const std::string& t) {
  if (t.empty()) return false;
  for (char c : t)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return false;
  return true;
}

bool is_scalar(const std::string& v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    return v.find(v.front(), 1) == v.size() - 1;
  if (v == "true" || v == "false") return true;
  if (v.empty()) return false;
  char* end = nullptr;
  std::strtod(v.c_str(), &end);
  return end == v.c_str() + v.size();
}

// Splits on commas outside quotes; false on an unterminated quote.
bool split_array(const std::string& body, std::vector<std::string>& items) {
  std::string cur;
  char quote = 0;
  for (char c : body) {
    if (quote) {
      cur += c;
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
      cur += c;
    } else if (c == ',') {
      items.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (quote) return false;
  if (!trim(cur).empty()) items.push_back(trim(cur));
  return true;
}

// Drops a # comment that is not inside quotes.
std::string strip_comment(const std::string& line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  return line;
}

}  // namespace

void check_config_syntax(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;  // the reader's own "cannot open" message names the file
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const auto fail = [&](const std::string& what) {
      throw UsageError(
          fmt::format("--config '{}' line {}: {} (expected [section], key = value "
                      "or a # comment)",
                      path, number, what));
    };
    for (char c : line)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r')
        fail("a control character");
    const std::string t = trim(strip_comment(line));
    if (t.empty()) continue;
    if (t.front() == '[') {
      if (t.back() != ']' || !is_name(trim(t.substr(1, t.size() - 2))))
        fail(fmt::format("'{}' is not a section header", t));
      continue;
    }
    const auto eq = t.find('=');
    if (eq == std::string::npos) fail(fmt::format("'{}' has no '='", t));
    const std::string key = trim(t.substr(0, eq)), value = trim(t.substr(eq + 1));
    if (!is_name(key)) fail(fmt::format("'{}' is not a key", key));
    if (value.empty()) fail(fmt::format("{} has no value", key));
    if (value.front() == '[') {
      std::vector<std::string> items;
      if (value.back() != ']' || !split_array(value.substr(1, value.size() - 2), items))
        fail(fmt::format("the array of {} is not closed on its line", key));
      for (const auto& item : items)
        if (!is_scalar(item))
          fail(fmt::format("'{}' in the array of {} is not a value", item, key));
    } else if (!is_scalar(value)) {
      fail(fmt::format("'{}' (the value of {}) is not a number, true/false or a quoted string",
                       value, key));
    }
  }
}

}  // namespace poslsh
