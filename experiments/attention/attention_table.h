// An attention table as its checks read it (`poslsh check`,
// experiments/attention/attention_checks.cpp and attention_length_fit.cpp): the
// optional columns it has, the names its lines give groups and rows, and its
// cells read with the table's contract (unusable tables throw InputError).
#pragma once

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <cmath>
#include <cstddef>
#include <string>

#include "experiments/checks/check_outcome.h"
#include "internal/printable.h"
#include "runner/csv_table.h"

namespace poslsh::attention_checks {

// Cell (r, c) as a number >= 0 (finite unless allow_inf).
inline double nonnegative(const CsvTable& t, std::size_t r, const std::string& c, bool allow_inf) {
  const double v = t.number(r, c);
  if (std::isnan(v) || v < 0 || (!allow_inf && std::isinf(v)))
    unusable(fmt::format("row {}: {} is '{}'; expected a {}number >= 0", CsvTable::line_of(r), c,
                         detail::printable(t.text(r, c)), allow_inf ? "" : "finite "));
  return v;
}

// A row of the path probe (attention_paths.h): estimator path-exact,
// path-band or path-lsh. The estimator and paths lines read it; the lines
// about the approximation's error law, rate, cost and length skip it by
// its estimator name.
inline bool is_path_row(const CsvTable& t, std::size_t r) {
  return t.text(r, "estimator").rfind("path-", 0) == 0;
}

// The table with the columns it has, and the names its lines give rows.
struct Table {
  const CsvTable& t;
  bool has_head, has_form, has_width;
  // The reference's own error bound (a band-exact reference; 0 for dense
  // exact, and in tables from before the column): |measured - true error|
  // <= reference_bound, so every margin below includes it.
  bool has_ref;

  explicit Table(const CsvTable& table)
      : t(table),
        has_head(table.has_column("head")),
        has_form(table.has_column("form")),
        has_width(table.has_column("width")),
        has_ref(table.has_column("reference_bound")) {}
  double ref_bound(std::size_t r) const {
    return has_ref ? nonnegative(t, r, "reference_bound", false) : 0.0;
  }
  std::string group_of(std::size_t r) const {
    return fmt::format("n={},d={},sigma={}{}{}", t.text(r, "n"), t.text(r, "d"), t.text(r, "sigma"),
                       has_head ? ",head=" + t.text(r, "head") : "",
                       has_form ? "," + t.text(r, "form") : "");
  }
  // s and trial are empty on rows they do not apply to (fixed blocks, a
  // window of explicit width); older tables hold 0 there.
  std::string row_name(std::size_t r) const {
    const std::string& s = t.text(r, "s");
    return fmt::format(
        "row {} ({} {}{})", CsvTable::line_of(r), group_of(r), t.text(r, "estimator"),
        s.empty() ? std::string()
                  : fmt::format(" s={} trial={}", detail::printable(s), detail::printable(t.text(r, "trial"))));
  }
};

}  // namespace poslsh::attention_checks
