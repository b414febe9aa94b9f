// `poslsh power`: what the checks catch, measured. Every check family runs on
// tables built in memory from the sound sampler over many seeds (its
// false-alarm rate) and from each planted defect of planted_defect.h (its
// detection rate), at the sizes given in the [power] section (by default those
// of configs/default.toml's sections, convergence reduced; see docs/checks.md).
//
// The sweep cells are (defect, seed); each cell writes one row per check kind
// (the check name up to '[', e.g. "cobin-scale", "law", "rate") that reported
// PASS or FAIL, with `failed` = 1 when any line of that kind failed. The
// summary (<out stem>.summary.csv) has the rates per (defect, family, check)
// with Clopper-Pearson intervals, and "any" rows: a defect is detected by a
// seed when some check failed, as `poslsh check` on those tables would exit 1.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "experiments/defects/planted_defect.h"
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
  // hash-law family (empty sigma: family off): hash_law.h's probes
  std::vector<double> hash_law_sigma;
  std::int64_t hash_law_indices = 512, hash_law_trials = 4096;
  double p = 0.01;
};

const std::vector<std::string>& power_columns();

// The rows of one (defect, seed) cell. alpha per table: kCheckFamilyAlpha /
// (number of families on), as `poslsh check` on the family tables would use.
std::vector<CsvRow> power_cell_rows(const PlantedDefect& defect, std::uint64_t seed,
                                    const PowerSizes& sizes);

// Rates per (defect, family, check) from a power table, as CSV text.
std::string power_summary_csv(const CsvTable& table);

// The report's "What the checks detect" section from a power table's path
// (its summary beside it): one row per defect, its overall detection
// (false-alarm for "sound") rate with the 95% interval, and the rate of each
// family.
void add_power_report_section(ReportDocument& doc, const std::string& table_csv);

// Checks on a power table, one line per sampler, each at its share alpha / k
// of the level (k samplers). A line claims a rate: a defect's detection rate
// is >= kPowerTarget (power[...]), the sound sampler's false-alarm rate is
// <= kCheckFamilyAlpha (false-alarm[sound]). With exact one-sided
// Clopper-Pearson bounds on the rate over the seeds it prints
//  - FAIL when the seeds refute the claim at the line's level (the
//    (1 - level) bound lies beyond the claimed rate: on a claim that holds,
//    probability <= level, so FAIL keeps its false-alarm meaning);
//  - PASS when they show it (the one-sided 95% bound lies on the claimed
//    side: 299 seeds, all detecting, for 0.99; 2995 seeds without an alarm
//    for 1e-3);
//  - info otherwise ("consistent with, not shown"), with the seeds it needs.
// PASS means shown, never merely "not disproven". Info lines give every rate.
std::vector<CheckOutcome> check_power_table(const CsvTable& table, double alpha);

// The detection rate a power line claims of a defect.
inline constexpr double kPowerTarget = 0.99;
// The one-sided level at which a line shows its claimed rate (95% confidence).
inline constexpr double kShownLevel = 0.05;

// Seeds and how many of them failed (a detection, or a false alarm).
struct PowerRate {
  std::int64_t seeds = 0, failed = 0;
};
// (defect, family, check) -> rate, in first-seen order; "any" rows per
// (defect, family) and (defect, "all"). Throws InputError on a table that is
// not a power table.
struct PowerRates {
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  std::map<std::tuple<std::string, std::string, std::string>, PowerRate> rates;
};
PowerRates power_rates(const CsvTable& t);
// Whether the seeds show the claim (one-sided 95% bound) or refute it at
// `level` (one-sided (1 - level) bound).
bool power_shown(const PowerRate& r);
bool power_refuted(const PowerRate& r, double level);
bool false_alarm_shown(const PowerRate& r);
bool false_alarm_refuted(const PowerRate& r, double level);
// Fewest seeds at which a line at `level` could FAIL: no seed detecting the
// defect refutes kPowerTarget; every seed alarming refutes kCheckFamilyAlpha.
std::int64_t seeds_to_decide_power(double level);
std::int64_t seeds_to_decide_false_alarm(double level);
// Fewest seeds (at least r.seeds) that would show the claim if every further
// seed detected the defect (raised no alarm).
std::int64_t seeds_to_show_power(const PowerRate& r);
std::int64_t seeds_to_show_false_alarm(const PowerRate& r);

}  // namespace poslsh
