#include "runner/csv_table.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "internal/printable.h"

namespace poslsh {

namespace {
// The fields of one line. poslsh's own tables never quote, but tables other
// tools wrote (pandas, spreadsheets) and poslsh's checks.csv may: a field
// that starts with a double quote runs to the closing quote ("" inside is one
// quote; a quoted field cannot span lines). Returns false on an unterminated
// quote or text after a closing quote.
bool split(const std::string& line, std::vector<std::string>& out) {
  out.clear();
  std::size_t start = 0;
  while (true) {
    if (start < line.size() && line[start] == '"') {
      std::string field;
      std::size_t i = start + 1;
      for (;; ++i) {
        if (i >= line.size()) return false;
        if (line[i] != '"') {
          field += line[i];
        } else if (i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          break;
        }
      }
      out.push_back(std::move(field));
      if (i + 1 == line.size()) return true;
      if (line[i + 1] != ',') return false;
      start = i + 2;
      continue;
    }
    const auto comma = line.find(',', start);
    out.push_back(line.substr(start, comma - start));
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}
}  // namespace

CsvTable CsvTable::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("'{}' is not readable", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

CsvTable CsvTable::parse(const std::string& text, const std::string& name) {
  CsvTable t;
  t.name_ = name;
  std::istringstream in(text);
  std::string line;
  std::size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> fields;
    if (!split(line, fields))
      throw InputError(fmt::format("'{}' line {}: a quoted field is not closed properly",
                                   detail::printable(name), lineno));
    if (t.columns_.empty()) {
      // A repeated name makes every column look-up ambiguous: no reader can use it.
      // (A hash map, not a pairwise scan: a header of 10^5 names took 20 s.)
      std::unordered_map<std::string_view, std::size_t> first;
      first.reserve(fields.size());
      for (std::size_t j = 0; j < fields.size(); ++j) {
        const auto [at, fresh] = first.emplace(fields[j], j);
        if (!fresh)
          throw InputError(fmt::format("'{}' header: column '{}' appears twice (columns {} and {})",
                                       detail::printable(name), detail::printable(fields[j]), at->second + 1,
                                       j + 1));
      }
      t.columns_ = std::move(fields);
      continue;
    }
    if (fields.size() != t.columns_.size())
      throw InputError(fmt::format("'{}' line {}: {} fields, header has {}", detail::printable(name),
                                   lineno, fields.size(), t.columns_.size()));
    t.rows_.push_back(std::move(fields));
  }
  if (t.columns_.empty()) throw InputError(fmt::format("'{}' is empty", detail::printable(name)));
  return t;
}

bool CsvTable::has_column(const std::string& name) const {
  for (const auto& c : columns_)
    if (c == name) return true;
  return false;
}

std::size_t CsvTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == name) return i;
  throw InputError(fmt::format("'{}' has no column '{}'", detail::printable(name_), detail::printable(name)));
}

const std::string& CsvTable::text(std::size_t row, const std::string& col) const {
  return rows_.at(row)[column(col)];
}

double CsvTable::number(std::size_t row, const std::string& col) const {
  const std::string& s = text(row, col);
  if (s.empty()) return std::nan("");
  // strtod rather than stod: stod throws on subnormal results, which are valid data.
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size())
    throw InputError(fmt::format("'{}' row {} column '{}': '{}' is not a number", detail::printable(name_),
                                 line_of(row), detail::printable(col), detail::printable(s)));
  return v;
}

std::int64_t CsvTable::integer(std::size_t row, const std::string& col, std::int64_t lo,
                               std::int64_t hi) const {
  const double v = number(row, col);
  if (!std::isfinite(v) || v != std::floor(v) || v < static_cast<double>(lo) ||
      v > static_cast<double>(hi))
    throw InputError(fmt::format("row {}, column {}: expected an integer in [{}, {}], got '{}'",
                                 line_of(row), detail::printable(col), lo, hi, detail::printable(text(row, col))));
  return static_cast<std::int64_t>(v);
}

}  // namespace poslsh
