// Synthetic convergence tables for the tests of `poslsh check`
// (tests/test_convergence_checks.cpp, tests/test_line_kinds.cpp): rows whose
// errors the test chooses and whose bound columns are recomputed as
// convergence_row writes them, so that the checker accepts them as tables
// and judges only the chosen errors.
#pragma once

#include <poslsh/bounds.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "experiments/convergence/convergence.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"
#include "runner/sweep.h"  // CsvRow

namespace poslsh::testing {

// The s of a synthetic table: seven doublings, enough for a slope per trial.
inline const std::vector<std::int64_t> kConvergenceS = {4, 8, 16, 32, 64, 128, 256};

// The index of column `name` in convergence_columns().
inline std::size_t convergence_column(const std::string& name) {
  const auto& cols = convergence_columns();
  return static_cast<std::size_t>(std::find(cols.begin(), cols.end(), name) - cols.begin());
}

// One row with the given errors; a status other than "ok" writes the
// spectral columns of a solve that did not converge.
inline CsvRow synthetic_convergence_row(std::int64_t n, double sigma, std::int64_t s, int trial,
                                        double spectral, double max_error, std::int64_t b_max,
                                        const std::string& status = "ok", double p = 0.01) {
  const bool ok = status == "ok";
  return {std::to_string(n),
          format_value(sigma),
          std::to_string(s),
          std::to_string(trial),
          "symmetric",
          format_value(p),
          ok ? format_value(spectral) : "",
          ok ? "1e-07" : "inf",
          ok ? format_value(spectral) : "0",
          ok ? format_value(spectral * 1.001) : "inf",
          format_value(spectral_bound(n, sigma, s, p)),
          format_value(max_error),
          format_value(max_bound(n, s, p)),
          format_value(max_error * 3),
          std::to_string(b_max),
          std::to_string(b_max_bound(n, sigma, s, p)),
          "20",
          "20",
          status,
          "0.1"};
}

// Trial j with spectral and max-norm errors 0.05 s^slopes[j] at n = 512,
// sigma = 4, s in kConvergenceS; `edit`, if given, may change each row.
inline CsvTable power_law_convergence_table(
    const std::vector<double>& slopes,
    const std::function<void(CsvRow& row, std::int64_t s)>& edit = {}) {
  std::string text = csv_line(convergence_columns());
  for (std::size_t j = 0; j < slopes.size(); ++j)
    for (const std::int64_t s : kConvergenceS) {
      const double e = 0.05 * std::pow(static_cast<double>(s), slopes[j]);
      CsvRow row = synthetic_convergence_row(512, 4, s, static_cast<int>(j), e, e, 5);
      if (edit) edit(row, s);
      text += csv_line(row);
    }
  return CsvTable::parse(text);
}

}  // namespace poslsh::testing
