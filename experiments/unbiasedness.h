// `poslsh unbiasedness`: the sharpest test the theory allows, E[M] = L* pair
// by pair (include/poslsh/cobinning.h says why it is exact and what unit is independent).
//
// One CSV row per (n, sigma, region, t): over the hashes k = 0..H-1 of trial 0
// (exactly what `poslsh sample --s H` exports), how many put the anchor of the
// region and the position t away from it in one block (`cobinned`), the
// expectation H exp(-t/sigma) (`expected`, recomputed by the checker), and the
// sum over consecutive batches of `batch` hashes of the squared batch counts
// (`batch_cobinned_sumsq`, for the dispersion test).
#pragma once

#include <poslsh/cobinning.h>
#include <poslsh/sampler_defect.h>

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "runner/csv_table.h"
#include "runner/sweep.h"

namespace poslsh {

const std::vector<std::string>& unbiasedness_columns();

// The rows of one anchor's counts.
std::vector<CsvRow> unbiasedness_rows(std::int64_t n, double sigma, CobinRegion region,
                                      const CobinCounts& counts);

// Rows of cell (n, sigma): hashes draw(0, k, sigma), k < hashes, at every
// region, `points` offsets (cobin_offsets), batches of `batch` hashes.
std::vector<CsvRow> unbiasedness_cell_rows(std::int64_t n, double sigma, std::int64_t hashes,
                                           std::int64_t batch, int points, const HashDrawer& draw);

// The checks of `poslsh check` on an unbiasedness table, per (n, sigma,
// region) group, with alpha split in three equal shares (Bonferroni):
//  1. mean: every row's count against Binomial(hashes, exp(-t/sigma)), exact
//     two-sided p-value >= (alpha/3) / rows;
//  2. scale: the pooled count over the group's offsets against its exact mean
//     and variance, two-sided normal p-value >= (alpha/3) / groups;
//  3. dispersion: the batch sum of squares of every applicable row
//     (dispersion_test) two-sided p-value >= (alpha/3) / applicable rows.
// Throws std::invalid_argument for an unusable table (a wrong anchor or
// expected value, counts out of range, NaN, groups with mixed hash counts).
std::vector<CheckOutcome> check_unbiasedness_table(const CsvTable& table,
                                                   double alpha = kCheckFamilyAlpha);

// The two-sided level of each scale test in a table of `groups` (n, sigma,
// region) groups checked at `alpha`: (alpha / 3) / groups.
double cobin_scale_level(double alpha, std::size_t groups);

}  // namespace poslsh
