// `poslsh power`: what the checks catch, measured. Every check family runs on
// tables built in memory from the sound sampler over many seeds (its
// false-alarm rate) and from each planted defect of planted_defect.h (its
// detection rate), at the sizes given in the [power] section (by default those
// of configs/default.toml's sections, convergence reduced; see the README).
//
// The sweep cells are (defect, seed); each cell writes one row per check kind
// (the check name up to '[', e.g. "cobin-scale", "law", "rate") that reported
// PASS or FAIL, with `failed` = 1 when any line of that kind failed. The
// summary (<out stem>.summary.csv) has the rates per (defect, family, check)
// with Clopper-Pearson intervals, and "any" rows: a defect is detected by a
// seed when some check failed, as `poslsh check` on those tables would exit 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/planted_defect.h"
#include "runner/csv_table.h"
#include "runner/sweep.h"

namespace poslsh {

struct PowerSizes {
  // unbiasedness family (empty n: family off)
  std::vector<std::int64_t> unbiasedness_n;
  std::vector<double> unbiasedness_sigma;
  std::int64_t unbiasedness_hashes = 1 << 19, unbiasedness_batch = 16;
  int unbiasedness_points = 24;
  // lags family (empty n: family off): the dispersion over every batch scale
  // 2^k of verify.h on an interleaved two-trial stream of `lags_hashes` hashes
  std::vector<std::int64_t> lags_n;
  std::vector<double> lags_sigma;
  std::int64_t lags_hashes = std::int64_t{1} << 22;
  // blocksize family
  std::vector<std::int64_t> blocksize_n, blocksize_s;
  std::vector<double> blocksize_sigma, blocksize_s_log;
  std::int64_t blocksize_trials = 1000;
  // convergence family
  std::vector<std::int64_t> convergence_n, convergence_s;
  std::vector<double> convergence_sigma;
  std::int64_t convergence_trials = 8;
  double p = 0.01;
};

const std::vector<std::string>& power_columns();

// The rows of one (defect, seed) cell. alpha per table: kCheckFamilyAlpha /
// (number of families on), as `poslsh check` on the family tables would use.
std::vector<CsvRow> power_cell_rows(const PlantedDefect& defect, std::uint64_t seed,
                                    const PowerSizes& sizes);

// Rates per (defect, family, check) from a power table, as CSV text.
std::string power_summary_csv(const CsvTable& table);

// The report's power table in Markdown: one row per defect, its overall
// detection (false-alarm for "sound") rate with the 95% interval, and the
// rate of each family.
std::string power_report_markdown(const CsvTable& summary);

// Checks on a power table: per defect, FAIL when the (1 - alpha/k)
// Clopper-Pearson interval of its detection rate lies below 0.99; for the
// sound sampler, FAIL when that interval of the false-alarm rate lies above
// kCheckFamilyAlpha. Info lines give every rate with its interval.
// A line whose seeds could not FAIL whatever they showed is n/a, and says how
// many seeds it needs (seeds_to_decide_*): no PASS without evidence.
std::vector<CheckOutcome> check_power_table(const CsvTable& table, double alpha);

// The detection rate a power line requires of a defect.
inline constexpr double kPowerTarget = 0.99;
// Fewest seeds at which a power line at two-sided Clopper-Pearson level
// `level` could FAIL (no seed detecting the defect puts the interval below
// kPowerTarget), and at which the false-alarm line could FAIL (every seed
// failing puts it above kCheckFamilyAlpha).
std::int64_t seeds_to_decide_power(double level);
std::int64_t seeds_to_decide_false_alarm(double level);

}  // namespace poslsh
