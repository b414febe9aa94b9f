// fuzz_csv: CsvTable::parse and every registered checker
// (src/runner/csv_table.cpp, experiments/).
#pragma once

#include <poslsh/input_error.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

#include "entry_common.h"
#include "experiments/experiment.h"
#include "runner/csv_table.h"

namespace poslsh_fuzz {

struct CsvResult {
  bool parsed = false;   // CsvTable::parse accepted the text
  std::size_t rows = 0;  // its data rows
  int checkers_ran = 0;  // registered checkers that returned outcomes
  int checkers_rejected = 0;
};

// CsvTable::parse (the reader of `poslsh check` and `merge`), every cell as a
// number, then, as check_file does for a table with rows, every registered
// experiment checker (not only the one whose columns match).
inline CsvResult fuzz_csv(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  CsvResult r;
  std::optional<poslsh::CsvTable> table;
  try {
    table.emplace(poslsh::CsvTable::parse(text, "fuzz.csv"));
  } catch (const poslsh::InputError&) {
    return r;
  }
  r.parsed = true;
  r.rows = table->size();
  for (std::size_t row = 0; row < table->size(); ++row) {
    if (table->row(row).size() != table->columns().size())
      invariant_failed("CsvTable::parse kept a row whose width differs from the header's");
    for (const auto& col : table->columns()) {
      try {
        (void)table->number(row, col);
      } catch (const poslsh::InputError&) {
      }
    }
  }
  if (table->size() == 0) return r;  // check_file refuses a table without rows
  for (const auto& e : poslsh::experiments()) {
    if (!e.checker.run) continue;
    try {
      const auto outcomes = e.checker.run(*table, poslsh::kCheckFamilyAlpha);
      ++r.checkers_ran;
      for (const auto& o : outcomes)
        if (o.check.find('\n') != std::string::npos)
          invariant_failed("checker " + e.name + " named a check with a newline");
    } catch (...) {
      if (!expected_rejection(std::current_exception())) throw;
      ++r.checkers_rejected;
    }
  }
  return r;
}

}  // namespace poslsh_fuzz
