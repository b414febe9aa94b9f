// A CSV table read back for checking, merging and plotting-side validation;
// csv_writer.h writes them. poslsh writes plain CSV: one header line,
// comma-separated fields, quoted only where a field holds a comma, quote or
// newline (no field of an experiment's table does; the check details of a
// report's checks.csv do). The reader takes RFC 4180 quoted fields within a
// line (what pandas writes, too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace poslsh {

class CsvTable {
 public:
  // Throws InputError naming the file on a missing file, an empty
  // file, a column name that appears twice, or a row whose field count
  // differs from the header's.
  static CsvTable read(const std::string& path);
  static CsvTable parse(const std::string& text, const std::string& name = "<csv>");

  const std::vector<std::string>& columns() const { return columns_; }
  std::size_t size() const { return rows_.size(); }
  bool has_column(const std::string& name) const;
  // Index of a column; throws InputError if absent.
  std::size_t column(const std::string& name) const;
  const std::string& text(std::size_t row, const std::string& col) const;
  // Field as a double; an empty field is NaN; a non-number throws InputError.
  double number(std::size_t row, const std::string& col) const;
  // Field as an integer in [lo, hi]; otherwise (NaN, fractional, out of
  // range) throws InputError "row L, column C: expected an integer
  // in [lo, hi], got '...'", L = line_of(row).
  std::int64_t integer(std::size_t row, const std::string& col, std::int64_t lo,
                       std::int64_t hi) const;
  // The line of the file holding data row r (the header is line 1): what
  // every error message about a table calls "row".
  static std::size_t line_of(std::size_t row) { return row + 2; }
  const std::vector<std::string>& row(std::size_t r) const { return rows_[r]; }

 private:
  std::string name_;
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace poslsh
