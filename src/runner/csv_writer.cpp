#include "runner/csv_writer.h"

#include <fmt/format.h>

#include <stdexcept>

#include "runner/cli_common.h"

namespace poslsh {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) line += ',';
    line += csv_field(fields[i]);
  }
  line += '\n';
  return line;
}

std::string csv_cell(double value) { return format_value(value); }

CsvWriter::CsvWriter(std::vector<std::string> columns)
    : columns_(std::move(columns)), text_(csv_line(columns_)) {}

CsvWriter& CsvWriter::row(const std::vector<std::string>& fields) {
  if (fields.size() != columns_.size())
    throw std::logic_error(fmt::format("CSV writer: a row of {} fields under a header of {}",
                                       fields.size(), columns_.size()));
  text_ += csv_line(fields);
  return *this;
}

std::string CsvWriter::take() {
  std::string out;
  out.swap(text_);
  return out;
}

}  // namespace poslsh
