// `poslsh blocksize`: the largest block b_max of s hashes over [0, n) (MATH §3)
// against its exact law P(b_max <= b) = F(b)^s, the union bound
// b_max <= min(n, floor(sigma x_p) + 1), and the sigma ln ln n growth when
// s = ceil(c ln n).
//
// One CSV row per (n, sigma, s, trial); hashes are draw_hash(seed, trial, k,
// sigma), k = 0..s-1, exactly what `poslsh sample` exports. Sweep cells are
// (n, sigma): the s values of a cell share their hashes (s = 8 uses the first 8
// of the s = 512 hashes), so each hash is measured once per cell. A summary
// table (<out stem>.summary.csv) carries one row per (n, sigma, s) with the
// empirical and predicted statistics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csv_table.h"
#include "experiment.h"

namespace poslsh {

// The columns of a blocksize table. s_log_c is empty for a fixed s and c for
// s = ceil(c ln n).
const std::vector<std::string>& blocksize_columns();

// How a cell's s is chosen: fixed, or ceil(c ln n).
struct SampleCount {
  std::int64_t fixed = 0;  // > 0: this s
  double log_c = 0;        // > 0: s = ceil(log_c · ln n)
  std::int64_t s_at(std::int64_t n) const;
};

// The rows of sweep cell (n, sigma): for each sample count in order, `trials`
// rows in trial order.
std::vector<std::vector<std::string>> blocksize_cell_rows(std::int64_t n, double sigma,
                                                          const std::vector<SampleCount>& counts,
                                                          std::int64_t trials, std::uint64_t seed,
                                                          double p);

// Per (n, sigma, s, s_log_c) statistics of a blocksize table, in table order.
struct BlocksizeCellStats {
  std::string n_text, sigma_text, s_text, s_log_c_text;  // as in the table
  std::int64_t n = 0, s = 0;
  double sigma = 0, s_log_c = 0, p = 0;  // s_log_c = 0 for a fixed s
  std::int64_t trials = 0, exceed_bound = 0, b_max_bound = 0;
  double mean_b_max = 0, mean_max_pitch = 0;
  std::int64_t median_b_max = 0, q10_b_max = 0, q90_b_max = 0, max_b_max = 0;
  // Predictions of the law: E[b_max] (sum of P(b_max > b)), its median, and
  // E[max pitch] by quadrature of 1 - F(t)^s.
  double law_mean_b_max = 0, law_mean_max_pitch = 0;
  std::int64_t law_median_b_max = 0;
  bool law_applies = false;  // n large enough for the law (block_size_law.h)
  double gof_statistic = 0, gof_p_value = 0;
  int gof_dof = 0;
  double ratio_sigma_lnln_n = 0;  // mean b_max / (sigma ln ln n); NaN for n <= e
  std::vector<std::int64_t> b_max;
};
// Throws std::invalid_argument on a malformed table.
std::vector<BlocksizeCellStats> blocksize_cell_stats(const CsvTable& table);

// The summary table as CSV text.
std::string blocksize_summary_csv(const std::vector<BlocksizeCellStats>& cells);

// The three checks of `poslsh check` on a blocksize table:
//  1. bound: per cell, exceedances of b_max_bound at most the Binomial(trials, p)
//     quantile exceeded with probability 1e-3 / cells (family-wise 1e-3;
//     trials within a cell are independent, cells are not).
//  2. law: chi-square fit of b_max to F(b)^s, per cell where law_applies and
//     trials >= 100; p-value >= 1e-3 / (number of such cells) (Bonferroni:
//     family-wise false alarm <= 1e-3 under any dependence between cells);
//     other cells report n/a.
//  3. growth: for each (sigma, c) with s = ceil(c ln n), mean b_max /
//     (sigma ln ln n) over the n in [2^10, 2^30] stays within a factor 2.
std::vector<CheckOutcome> check_blocksize_table(const CsvTable& table);

// Family-wise levels of checks 1 and 2.
inline constexpr double kBlocksizeFamilyAlpha = 1e-3;
inline constexpr std::int64_t kBlocksizeMinFitTrials = 100;

}  // namespace poslsh
