// Goodness of fit of a b_max sample to the block-size law (docs/MATH.md §4):
// the law's cells and the exact tests the blocksize checks and `poslsh
// verify` run on a sample.
#pragma once

#include <poslsh/block_size_law.h>

#include <cstdint>
#include <span>
#include <vector>

#include "stats/chi_square.h"

namespace poslsh {

// Cells of consecutive b values [lo, hi] whose expected count under the law for
// `trials` trials is >= min_expected; the lowest cell starts at 1 and the last
// one ends at n. Built from the law only, never from the data.
struct LawCell {
  std::int64_t lo = 0, hi = 0;
  double expected = 0;
};
std::vector<LawCell> merged_cells(const BlockSizeLaw& law, std::int64_t trials,
                                  double min_expected = 5.0);

// Goodness of fit of a b_max sample to the law, cells merged to expected
// count >= 5. Throws std::logic_error on a value outside [1, n] or an
// empty sample.
//
// The verdict rests on exact tails, not on the chi-square: at every cut point
// b between two cells, #{trials with b_max <= b} ~ Binomial(trials, P(b_max <=
// b)) exactly under the law, and cdf_p_value is (number of cut points) x the
// smallest two-sided exact binomial p-value over them (Bonferroni, so a valid
// p-value under any dependence between the cuts). The chi-square statistic
// (`test`) is reported only: its asymptotic tail is not trusted at the levels
// the checks use (a single expected-5 cell carries a far heavier tail).
struct BlockSizeFit {
  stats::ChiSquareResult test;
  double cdf_p_value = 1;
  int cdf_cuts = 0;            // cut points tested (cells - 1); 0: not testable
  std::int64_t worst_cut = 0;  // the cut point with the smallest p-value
  std::vector<LawCell> cells;
  std::vector<std::int64_t> observed;  // per cell
};
BlockSizeFit block_size_fit(std::span<const std::int64_t> sample, const BlockSizeLaw& law);

}  // namespace poslsh
