// Pearson's chi-square test of counts against expected counts.
#pragma once

#include <span>

namespace poslsh::stats {

// Pearson chi-square test of observed counts against expected counts (no
// parameters fitted: dof = cells - 1). The caller merges cells.
struct ChiSquareResult {
  double statistic = 0;
  int dof = 0;
  double p_value = 1;
  bool testable = false;  // false when fewer than two cells
};
// Throws std::logic_error when the sizes differ or an expected count is <= 0.
ChiSquareResult chi_square_test(std::span<const double> observed, std::span<const double> expected);

}  // namespace poslsh::stats
