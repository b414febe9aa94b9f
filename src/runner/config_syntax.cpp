#include "runner/config_syntax.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "runner/cli_errors.h"

namespace poslsh {

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

std::vector<std::string> config_sections(const std::string& toml) {
  std::vector<std::string> out;
  std::istringstream in(toml);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] != '[') continue;
    const auto close = line.find(']', first);
    if (close != std::string::npos) out.push_back(line.substr(first + 1, close - first - 1));
  }
  return out;
}

}  // namespace poslsh
