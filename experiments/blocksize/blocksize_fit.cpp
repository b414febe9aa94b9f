#include "experiments/blocksize/blocksize_fit.h"

#include <poslsh/argument_error.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stats/binomial.h"
#include "stats/chi_square.h"

namespace poslsh {

std::vector<LawCell> merged_cells(const BlockSizeLaw& law, std::int64_t trials,
                                  double min_expected) {
  check::at_least("trials", trials, 1);
  if (!(min_expected > 0))
    throw ArgumentError("min_expected", "must be > 0", format_value(min_expected));
  const double t = static_cast<double>(trials);
  // Mass of [lo, hi], from whichever tail keeps precision.
  const auto mass = [&](std::int64_t lo, std::int64_t hi) {
    return cdf(law, hi) < 0.5 ? cdf(law, hi) - cdf(law, lo - 1)
                              : survival(law, lo - 1) - survival(law, hi);
  };
  std::vector<LawCell> cells;
  std::int64_t lo = 1;
  for (std::int64_t b = 1; b <= law.n(); ++b) {
    const double rest = t * survival(law, b);
    if (rest < min_expected) {  // what remains cannot fill a cell: close the last one
      cells.push_back({lo, law.n(), t * survival(law, lo - 1)});
      break;
    }
    const double here = t * mass(lo, b);
    if (here >= min_expected) {
      cells.push_back({lo, b, here});
      lo = b + 1;
    }
  }
  // The last cell may hold less than min_expected: merge it into its neighbour.
  if (cells.size() >= 2 && cells.back().expected < min_expected) {
    LawCell last = cells.back();
    cells.pop_back();
    cells.back().hi = last.hi;
    cells.back().expected += last.expected;
  }
  return cells;
}

namespace {

// Exact binomial tails of the empirical CDF at the cells' cut points (see the header).
void exact_cdf_test(BlockSizeFit& fit, const BlockSizeLaw& law, std::int64_t trials) {
  fit.cdf_cuts = static_cast<int>(fit.cells.size()) - 1;
  if (fit.cdf_cuts < 1) return;
  std::int64_t at_most = 0;
  double smallest = 2;
  for (std::size_t i = 0; i + 1 < fit.cells.size(); ++i) {
    at_most += fit.observed[i];
    const std::int64_t b = fit.cells[i].hi;
    const double below = cdf(law, b), above = survival(law, b);
    // The smaller side keeps precision: #{<= b} ~ Bin(T, below) iff #{> b} ~ Bin(T, above).
    const double p = below <= 0.5 ? stats::binomial_two_sided_p(at_most, trials, below)
                                  : stats::binomial_two_sided_p(trials - at_most, trials, above);
    if (p < smallest) smallest = p, fit.worst_cut = b;
  }
  fit.cdf_p_value = std::min(1.0, smallest * fit.cdf_cuts);
}

}  // namespace

BlockSizeFit block_size_fit(std::span<const std::int64_t> sample, const BlockSizeLaw& law) {
  if (sample.empty()) throw std::logic_error("sample must not be empty");
  BlockSizeFit fit;
  fit.cells = merged_cells(law, static_cast<std::int64_t>(sample.size()));
  fit.observed.assign(fit.cells.size(), 0);
  for (const std::int64_t b : sample) {
    if (b < 1 || b > law.n())
      throw std::logic_error("b_max sample values must lie in [1, n], got " + std::to_string(b));
    const auto it = std::lower_bound(fit.cells.begin(), fit.cells.end(), b,
                                     [](const LawCell& c, std::int64_t v) { return c.hi < v; });
    ++fit.observed[static_cast<std::size_t>(it - fit.cells.begin())];
  }
  std::vector<double> observed(fit.observed.begin(), fit.observed.end());
  std::vector<double> expected;
  for (const auto& c : fit.cells) expected.push_back(c.expected);
  fit.test = stats::chi_square_test(observed, expected);
  exact_cdf_test(fit, law, static_cast<std::int64_t>(sample.size()));
  return fit;
}

}  // namespace poslsh
