// `poslsh blocksize`: the largest block b_max of s hashes over [0, n) (MATH §3)
// against its exact law P(b_max <= b) = F(b)^s, the union bound
// b_max <= min(n, floor(sigma x_p) + 1), and the sigma ln ln n growth when
// s = ceil(c ln n).
//
// One CSV row per (n, sigma, s, trial); hashes are draw_hash(seed, trial, k,
// sigma), k = 0..s-1, exactly what `poslsh sample` exports (with --alibi-heads
// --independent-heads, seed is the head's own: independent_head_seed in
// alibi_heads.h). Sweep cells are
// (n, sigma): the s values of a cell share their hashes (s = 8 uses the first 8
// of the s = 512 hashes), so each hash is measured once per cell. A summary
// table (<out stem>.summary.csv) carries one row per (n, sigma, s) with the
// empirical and predicted statistics.
#pragma once


#include <poslsh/hash_parameters.h>

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/defects/sampler_defect.h"
#include "runner/csv_table.h"

namespace poslsh {

// The columns of a blocksize table. s_log_c is empty for a fixed s and c for
// s = ceil(c ln n).
const std::vector<std::string>& blocksize_columns();

// How a cell's s is chosen: fixed, or ceil(c ln n).
struct SampleCount {
  std::int64_t fixed = 0;  // this s, unless log_c > 0
  double log_c = 0;        // > 0: s = ceil(log_c · ln n)
  std::int64_t s_at(std::int64_t n) const;
};

// (n, sigma, s) for each sample count at one cell, checked once: the
// parameters the cell's rows trust. Throws ArgumentError (n, sigma, s) or
// UsageError (an --s-log count over 2^31 - 1).
std::vector<HashParameters> blocksize_hash_parameters(std::int64_t n, double sigma,
                                                      const std::vector<SampleCount>& counts);

// The rows of sweep cell (n, sigma): for each sample count in order, `trials`
// rows in trial order. The plain-number forms check (n, sigma, s) once by
// building blocksize_hash_parameters; the last form trusts them (hashes[i]
// is counts[i] at the cell).
std::vector<std::vector<std::string>> blocksize_cell_rows(std::int64_t n, double sigma,
                                                          const std::vector<SampleCount>& counts,
                                                          std::int64_t trials, std::uint64_t seed,
                                                          double p);
// The same rows from any hash source (hash k of trial t is draw(t, k, sigma)):
// power measurements and tests plant sampler defects through it. The seed
// overload is this one with hash_drawer(seed), i.e. draw_hash(seed, t, k, sigma).
std::vector<std::vector<std::string>> blocksize_cell_rows(std::int64_t n, double sigma,
                                                          const std::vector<SampleCount>& counts,
                                                          std::int64_t trials,
                                                          const HashDrawer& draw, double p);
std::vector<std::vector<std::string>> blocksize_cell_rows(const std::vector<HashParameters>& hashes,
                                                          const std::vector<SampleCount>& counts,
                                                          std::int64_t trials,
                                                          const HashDrawer& draw, double p);

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
// Throws InputError on a malformed table.
std::vector<BlocksizeCellStats> blocksize_cell_stats(const CsvTable& table);

// The summary table as CSV text.
std::string blocksize_summary_csv(const std::vector<BlocksizeCellStats>& cells);

// The checks of `poslsh check` on a blocksize table. `alpha` is the false-alarm
// rate the table's statistical checks spend together: it is split equally
// over the families below that have at least one test (Bonferroni), and each
// family splits its share over its tests, so the family-wise rate holds under
// any dependence between cells (cells of one n share hashes).
//  1. bound: per cell, exceedances of b_max_bound at most the Binomial(trials, p)
//     quantile exceeded with probability share / cells.
//  2. law: chi-square fit of b_max to F(b)^s, per cell where law_applies and
//     trials >= kBlocksizeMinFitTrials; p-value >= share / (such cells); other
//     cells report n/a.
//  3. growth: for each (sigma, c) with s = ceil(c ln n), at every n where
//     law_applies, the mean b_max over the independent trials against the exact
//     law's E[b_max], two-sided, by the Chernoff bound of the law's own moment
//     generating function (exact at any trial count, no normal approximation),
//     at share / (such n in all groups). The lower side allows for the trials
//     that deviate from the law by one (block_size_law.h) at their Binomial
//     quantile. Plus, as info, weighted least-squares fits of the mean over n
//     to a + b sigma g(n), g = ln ln n, ln n, sqrt(ln n), and to a constant.
// Throws InputError (one line naming the row and column) on a
// malformed table: a repeated column name, a non-integer, non-finite or out of
// range n, s, trial, b_max or b_max_bound, sigma or max_pitch not finite and
// > 0, p outside (0, 1) or not constant within a cell, s != ceil(c ln n) where
// s_log_c = c is set, a repeated trial within a cell, or a b_max_bound that
// disagrees with b_max_bound(n, sigma, s, p) recomputed (bounds.h).
std::vector<CheckOutcome> check_blocksize_table(const CsvTable& table,
                                                double alpha = kCheckFamilyAlpha);

inline constexpr std::int64_t kBlocksizeMinFitTrials = 100;

}  // namespace poslsh
