// The one CSV writer: every table poslsh writes (experiments' sweeps and
// summaries, benches, `sample`, `merge`, a report's checks.csv) is built
// here, and CsvTable (csv_table.h) reads them back.
//
// One header line, comma-separated fields, '\n' line ends. A field holding a
// comma, a double quote or a newline is quoted as RFC 4180 says ("" for a
// quote inside), which CsvTable reads back; numbers never need it, so an
// experiment's table has no quotes at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace poslsh {

// A field as it goes into a line: quoted only when it must be.
std::string csv_field(std::string_view text);

// Fields joined into one CSV line, with its newline.
std::string csv_line(const std::vector<std::string>& fields);

// A field's text for a value: strings as they are, integers in decimal,
// doubles as format_value writes them (shortest round-trip text).
inline std::string csv_cell(std::string text) { return text; }
inline std::string csv_cell(const char* text) { return text; }
std::string csv_cell(double value);
template <class Int>
  requires std::is_integral_v<Int>
std::string csv_cell(Int value) {
  return std::to_string(value);
}

// A table built row by row. take() hands over the text so far, so a writer of
// a large table can stream it to its file in pieces.
class CsvWriter {
 public:
  explicit CsvWriter(std::vector<std::string> columns);

  // One row; throws std::logic_error when its field count is not the header's
  // (a bug in the writer, not in any input).
  CsvWriter& row(const std::vector<std::string>& fields);
  template <class... Values>
  CsvWriter& row_of(const Values&... values) {
    return row({csv_cell(values)...});
  }

  const std::vector<std::string>& columns() const { return columns_; }
  std::size_t buffered_bytes() const { return text_.size(); }
  // The text written since the last take() (the header included, the first time).
  std::string take();

 private:
  std::vector<std::string> columns_;
  std::string text_;
};

}  // namespace poslsh
