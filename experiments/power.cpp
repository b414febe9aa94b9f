#include "experiments/power.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "experiments/blocksize.h"
#include "experiments/convergence.h"
#include "experiments/hash_law.h"
#include "experiments/unbiasedness.h"
#include "experiments/verify.h"
#include "runner/cli_common.h"
#include "runner/csv_writer.h"
#include "runner/report_document.h"
#include "runner/swept_experiment.h"

namespace poslsh {

const std::vector<std::string>& power_columns() {
  static const std::vector<std::string> columns = {"defect", "seed",   "family",
                                                   "check",  "failed", "detail"};
  return columns;
}

namespace {

// The kind of a check line: its name up to '[' (trailing spaces dropped).
std::string check_kind(const std::string& name) {
  std::string kind = name.substr(0, name.find('['));
  while (!kind.empty() && kind.back() == ' ') kind.pop_back();
  return kind;
}

// A detail fit for a CSV field: no commas or newlines.
std::string csv_safe(std::string s) {
  for (auto& c : s)
    if (c == ',' || c == '\n') c = ';';
  return s;
}

CsvTable as_table(const std::vector<std::string>& columns, const std::vector<CsvRow>& rows) {
  std::string text = csv_line(columns);
  for (const auto& r : rows) text += csv_line(r);
  return CsvTable::parse(text, "power");
}

// b_max moved from the sigma ln ln n regime to sigma ln n: b_max ln n / ln ln n.
void inflate_b_max(std::vector<CsvRow>& rows, std::int64_t n) {
  const auto& cols = blocksize_columns();
  const auto at =
      static_cast<std::size_t>(std::find(cols.begin(), cols.end(), "b_max") - cols.begin());
  const double ln_n = std::log(static_cast<double>(n));
  const double factor = n > 15 ? ln_n / std::log(ln_n) : 1.0;
  for (auto& r : rows) {
    const auto b = std::stoll(r[at]);
    r[at] = std::to_string(std::min<std::int64_t>(
        n, static_cast<std::int64_t>(std::llround(static_cast<double>(b) * factor))));
  }
}

}  // namespace

namespace power_cells {

// Offsets per sigma the lags family picks its offset from (as verify's default).
constexpr int kLagsPoints = 24;

// One power row per check kind of a family's outcomes: failed when any line of
// that kind failed (its first failing line is the detail).
void record_kinds(const PlantedDefect& defect, std::uint64_t seed, const std::string& family,
                  const std::vector<CheckOutcome>& outcomes, std::vector<CsvRow>& rows) {
  std::map<std::string, std::pair<bool, std::string>> kinds;  // kind -> (failed, first detail)
  std::vector<std::string> order;
  for (const auto& o : outcomes) {
    if (o.verdict != Verdict::kPass && o.verdict != Verdict::kFail) continue;
    const std::string kind = check_kind(o.check);
    if (!kinds.contains(kind)) order.push_back(kind);
    auto& k = kinds[kind];
    if (o.verdict == Verdict::kFail && !k.first) k = {true, o.check + ": " + o.detail};
  }
  for (const auto& kind : order)
    rows.push_back({defect.name(), std::to_string(seed), family, kind,
                    kinds[kind].first ? "1" : "0", csv_safe(kinds[kind].second)});
}

std::vector<CheckOutcome> unbiasedness_outcomes(const PowerSizes& z, const HashDrawer& draw,
                                                BinningBug bug, double alpha) {
  std::vector<CsvRow> t;
  for (const auto n : z.unbiasedness_n)
    for (const double sigma : z.unbiasedness_sigma) {
      auto part = unbiasedness_cell_rows(n, sigma, z.unbiasedness_hashes, z.unbiasedness_batch,
                                         z.unbiasedness_points, draw, bug);
      t.insert(t.end(), part.begin(), part.end());
    }
  return check_unbiasedness_table(as_table(unbiasedness_columns(), t), alpha);
}

// The lags family: per (n, sigma), the co-binning indicator at the offset
// nearest p = 1/2 from the start, middle and end anchors of each hash of the
// interleaved stream, tested over every batch scale (verify.h).
std::vector<CheckOutcome> lags_outcomes(const PowerSizes& z, const HashDrawer& draw, double alpha) {
  const double cell_alpha = alpha / static_cast<double>(z.lags_n.size() * z.lags_sigma.size());
  std::vector<std::string> names;
  for (const auto r : all_cobin_regions()) names.push_back(cobin_region_name(r));
  std::vector<CheckOutcome> out;
  for (const auto n : z.lags_n)
    for (const double sigma : z.lags_sigma) {
      const std::int64_t t = lag_test_offset(n, sigma, kLagsPoints);
      std::vector<std::vector<bool>> cobinned(names.size());
      for (std::int64_t k = 0; k < z.lags_hashes; ++k) {
        const PositionalHash h = draw_interleaved(draw, k, sigma);
        for (std::size_t a = 0; a < names.size(); ++a)
          cobinned[a].push_back(t < cobin_run(h, all_cobin_regions()[a], n));
      }
      auto part = lag_dispersion_outcomes(cobinned, names, n, sigma, t, cell_alpha);
      out.insert(out.end(), part.begin(), part.end());
    }
  return out;
}

std::vector<CheckOutcome> blocksize_outcomes(const PowerSizes& z, const HashDrawer& draw,
                                             bool inflate, double alpha) {
  std::vector<SampleCount> counts;
  for (const auto s : z.blocksize_s) counts.push_back({s, 0});
  for (const auto c : z.blocksize_s_log) counts.push_back({0, c});
  std::vector<CsvRow> t;
  for (const auto n : z.blocksize_n)
    for (const double sigma : z.blocksize_sigma) {
      auto part = blocksize_cell_rows(n, sigma, counts, z.blocksize_trials, draw, z.p);
      if (inflate) inflate_b_max(part, n);
      t.insert(t.end(), part.begin(), part.end());
    }
  return check_blocksize_table(as_table(blocksize_columns(), t), alpha);
}

std::vector<CheckOutcome> convergence_outcomes(const PowerSizes& z, const HashDrawer& draw,
                                               std::uint64_t seed, double alpha) {
  ConvergenceSettings settings;
  settings.p = z.p;
  settings.seed = seed;
  settings.max_lanczos = 20000;
  std::vector<CsvRow> t;
  for (const auto n : z.convergence_n)
    for (const double sigma : z.convergence_sigma)
      for (const auto s : z.convergence_s)
        for (std::int64_t trial = 0; trial < z.convergence_trials; ++trial) {
          std::vector<PositionalHash> hashes;
          for (std::int64_t k = 0; k < s; ++k)
            hashes.push_back(
                draw(static_cast<std::uint64_t>(trial), static_cast<std::uint64_t>(k), sigma));
          t.push_back(
              convergence_row(n, sigma, static_cast<std::uint64_t>(trial), hashes, settings));
        }
  return check_convergence_table(as_table(convergence_columns(), t), alpha);
}

std::vector<CheckOutcome> hash_law_outcomes(const PowerSizes& z, const HashDrawer& draw,
                                            double alpha) {
  std::vector<CsvRow> t;
  for (const double sigma : z.hash_law_sigma) {
    auto part = hash_law_cell_rows(sigma, {z.hash_law_indices, z.hash_law_trials}, draw);
    t.insert(t.end(), part.begin(), part.end());
  }
  return check_hash_law_table(as_table(hash_law_columns(), t), alpha);
}

}  // namespace power_cells

std::vector<CsvRow> power_cell_rows(const PlantedDefect& defect, std::uint64_t seed,
                                    const PowerSizes& z) {
  using namespace power_cells;
  const HashDrawer draw = hash_drawer(seed, defect.sampler);
  const bool unb = !z.unbiasedness_n.empty() && !z.unbiasedness_sigma.empty();
  const bool bs = !z.blocksize_n.empty() && !z.blocksize_sigma.empty();
  const bool conv = !z.convergence_n.empty() && !z.convergence_sigma.empty();
  const bool lags = !z.lags_n.empty() && !z.lags_sigma.empty();
  const bool law = !z.hash_law_sigma.empty();
  const double alpha =
      kCheckFamilyAlpha / std::max(1, int{unb} + int{bs} + int{conv} + int{lags} + int{law});
  std::vector<CsvRow> rows;
  // The b_max inflation is a defect of block sizes only, a binning bug one of
  // the co-binning consumers only: other families would test the sound
  // sampler again.
  const bool binning_bug = defect.binning_bug != BinningBug::kNone;
  if (unb && !defect.inflate_b_max)
    record_kinds(defect, seed, "unbiasedness",
                 unbiasedness_outcomes(z, draw, defect.binning_bug, alpha), rows);
  if (lags && !defect.inflate_b_max && !binning_bug)
    record_kinds(defect, seed, "lags", lags_outcomes(z, draw, alpha), rows);
  if (bs && !binning_bug)
    record_kinds(defect, seed, "blocksize",
                 blocksize_outcomes(z, draw, defect.inflate_b_max, alpha), rows);
  if (conv && !defect.inflate_b_max && !binning_bug)
    record_kinds(defect, seed, "convergence", convergence_outcomes(z, draw, seed, alpha), rows);
  if (law && !defect.inflate_b_max && !binning_bug)
    record_kinds(defect, seed, "hash-law", hash_law_outcomes(z, draw, alpha), rows);
  return rows;
}

namespace {

using Rate = PowerRate;

struct Interval {
  double low, high;
};
// Two-sided Clopper-Pearson interval at confidence 1 - alpha.
Interval clopper_pearson(const Rate& r, double alpha) {
  using B = boost::math::binomial_distribution<double>;
  const auto n = static_cast<double>(r.seeds), k = static_cast<double>(r.failed);
  return {B::find_lower_bound_on_p(n, k, alpha / 2), B::find_upper_bound_on_p(n, k, alpha / 2)};
}

// (defect, family, check) -> rate, in first-seen order; "any" rows per
// (defect, family) and (defect, "all").
struct PowerRates {
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  std::map<std::tuple<std::string, std::string, std::string>, Rate> rates;
};

PowerRates power_rates(const CsvTable& t) {
  for (const auto& c : power_columns())
    if (!t.has_column(c)) throw InputError("power table without column " + c);
  // Per (defect, seed): which (family, check) failed.
  std::map<std::pair<std::string, std::string>, std::map<std::pair<std::string, std::string>, bool>>
      per_seed;
  std::vector<std::pair<std::string, std::string>> seeds_order;
  PowerRates out;
  const auto touch = [&](const std::tuple<std::string, std::string, std::string>& key) -> Rate& {
    if (!out.rates.contains(key)) out.order.push_back(key);
    return out.rates[key];
  };
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::string failed = t.text(r, "failed");
    if (failed != "0" && failed != "1")
      throw InputError(fmt::format("row {}: failed must be 0 or 1", r + 2));
    const auto ds = std::pair{t.text(r, "defect"), t.text(r, "seed")};
    if (!per_seed.contains(ds)) seeds_order.push_back(ds);
    per_seed[ds][{t.text(r, "family"), t.text(r, "check")}] = failed == "1";
  }
  for (const auto& ds : seeds_order) {
    std::map<std::string, bool> family_any;
    bool any = false;
    for (const auto& [fc, failed] : per_seed[ds]) {
      Rate& rate = touch({ds.first, fc.first, fc.second});
      ++rate.seeds;
      rate.failed += failed;
      family_any[fc.first] = family_any[fc.first] || failed;
      any = any || failed;
    }
    for (const auto& [family, failed] : family_any) {
      Rate& rate = touch({ds.first, family, "any"});
      ++rate.seeds;
      rate.failed += failed;
    }
    Rate& all = touch({ds.first, "all", "any"});
    ++all.seeds;
    all.failed += any;
  }
  return out;
}

}  // namespace

std::string power_summary_csv(const CsvTable& table) {
  const PowerRates pr = power_rates(table);
  std::string text =
      csv_line({"defect", "family", "check", "seeds", "failed", "rate", "ci95_low", "ci95_high"});
  for (const auto& key : pr.order) {
    const Rate& r = pr.rates.at(key);
    const Interval ci = clopper_pearson(r, 0.05);
    text += csv_line({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::to_string(r.seeds),
                      std::to_string(r.failed),
                      fmt::format("{:.4f}", static_cast<double>(r.failed) / r.seeds),
                      fmt::format("{:.4f}", ci.low), fmt::format("{:.4f}", ci.high)});
  }
  return text;
}

namespace {

// The power section's table: header and rows.
std::pair<std::vector<std::string>, std::vector<std::vector<std::string>>> power_report_table(
    const CsvTable& summary) {
  std::vector<std::string> defects, families;
  std::map<std::pair<std::string, std::string>, std::size_t> any;  // (defect, family) -> row
  for (std::size_t r = 0; r < summary.size(); ++r) {
    if (summary.text(r, "check") != "any") continue;
    const std::string d = summary.text(r, "defect"), f = summary.text(r, "family");
    if (std::find(defects.begin(), defects.end(), d) == defects.end()) defects.push_back(d);
    if (f != "all" && std::find(families.begin(), families.end(), f) == families.end())
      families.push_back(f);
    any[{d, f}] = r;
  }
  std::vector<std::string> header = {"sampler", "seeds", "some check failed", "95% interval"};
  header.insert(header.end(), families.begin(), families.end());
  std::vector<std::vector<std::string>> rows;
  for (const auto& d : defects) {
    if (!any.contains({d, "all"})) continue;
    const std::size_t r = any.at({d, "all"});
    rows.push_back({d, summary.text(r, "seeds"), summary.text(r, "rate"),
                    fmt::format("[{}, {}]", summary.text(r, "ci95_low"),
                                summary.text(r, "ci95_high"))});
    for (const auto& f : families)
      rows.back().push_back(any.contains({d, f}) ? summary.text(any.at({d, f}), "rate") : "n/a");
  }
  return {header, rows};
}

}  // namespace

void add_power_report_section(ReportDocument& doc, const std::string& table_csv) {
  const std::string summary = summary_path(table_csv);
  doc.heading(2, "What the checks detect");
  const auto [header, rows] = power_report_table(CsvTable::read(summary));
  doc.table(header, rows);
  doc.paragraph(fmt::format(
      "A sampler is detected by a seed when some check of the family tables built from it "
      "fails (per check: [{0}]({0})).",
      std::filesystem::path(summary).filename().string()));
}

namespace {

// One-sided Clopper-Pearson bounds on a rate: P(rate < lower) <= 1 - confidence
// and P(rate > upper) <= 1 - confidence for any true rate (exact binomial
// tails, no approximation).
double rate_lower_bound(const Rate& r, double one_sided_level) {
  using B = boost::math::binomial_distribution<double>;
  return B::find_lower_bound_on_p(static_cast<double>(r.seeds), static_cast<double>(r.failed),
                                  one_sided_level);
}
double rate_upper_bound(const Rate& r, double one_sided_level) {
  using B = boost::math::binomial_distribution<double>;
  return B::find_upper_bound_on_p(static_cast<double>(r.seeds), static_cast<double>(r.failed),
                                  one_sided_level);
}

}  // namespace

bool power_shown(const PowerRate& r) { return rate_lower_bound(r, kShownLevel) >= kPowerTarget; }
bool power_refuted(const PowerRate& r, double level) {
  return rate_upper_bound(r, level) < kPowerTarget;
}
bool false_alarm_shown(const PowerRate& r) {
  return rate_upper_bound(r, kShownLevel) <= kCheckFamilyAlpha;
}
bool false_alarm_refuted(const PowerRate& r, double level) {
  return rate_lower_bound(r, level) > kCheckFamilyAlpha;
}

std::int64_t seeds_to_decide_power(double level) {
  std::int64_t n = 1;  // fewest seeds at which no detection at all refutes the target
  while (!power_refuted({n, 0}, level)) ++n;
  return n;
}

std::int64_t seeds_to_decide_false_alarm(double level) {
  std::int64_t n = 1;  // fewest seeds at which an alarm in every seed refutes the rate
  while (!false_alarm_refuted({n, n}, level)) ++n;
  return n;
}

std::int64_t seeds_to_show_power(const PowerRate& r) {
  std::int64_t n = std::max<std::int64_t>(r.seeds, 1);  // every further seed detecting
  while (!power_shown({n, n - (r.seeds - r.failed)})) ++n;
  return n;
}

std::int64_t seeds_to_show_false_alarm(const PowerRate& r) {
  std::int64_t n = std::max<std::int64_t>(r.seeds, 1);  // no further seed alarming
  while (!false_alarm_shown({n, r.failed})) ++n;
  return n;
}

namespace {

// The check kinds that caught defect d, strongest first (at most three).
std::string caught_by(const PowerRates& pr, const std::string& d) {
  std::vector<std::pair<double, std::string>> by;
  for (const auto& key : pr.order) {
    if (std::get<0>(key) != d || std::get<2>(key) == "any") continue;
    const Rate& k = pr.rates.at(key);
    if (k.failed > 0)
      by.push_back({static_cast<double>(k.failed) / static_cast<double>(k.seeds),
                    std::get<1>(key) + "/" + std::get<2>(key)});
  }
  std::stable_sort(by.begin(), by.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::string caught;
  for (std::size_t i = 0; i < by.size() && i < 3; ++i)
    caught += fmt::format("{}{} {:.3f}", i ? ", " : "", by[i].second, by[i].first);
  return caught;
}

// A rate line's verdict: FAIL when the seeds refute the claimed rate at the
// line's level (an exact one-sided Clopper-Pearson bound beyond it: on a claim
// that holds this happens with probability <= level), PASS when they show it
// (the one-sided 95% bound on the right side of it), info in between: the
// seeds are consistent with the claim and do not demonstrate it.
struct RateVerdict {
  Verdict verdict;
  std::string text;
};

RateVerdict claimed_rate_verdict(bool refuted, bool shown, std::int64_t seeds, std::int64_t to_show,
                                 std::int64_t to_refute, const std::string& claim) {
  if (refuted) return {Verdict::kFail, fmt::format("refuted: {}", claim)};
  if (shown) return {Verdict::kPass, fmt::format("shown: {}", claim)};
  return {Verdict::kInfo,
          fmt::format("consistent with, not shown: {} seeds; needs >= {} to show that {}{}", seeds,
                      to_show, claim,
                      seeds < to_refute ? fmt::format(" (and >= {} before any outcome could "
                                                      "refute it)",
                                                      to_refute)
                                        : std::string())};
}

CheckOutcome false_alarm_line(const Rate& r, double level, const std::string& caught) {
  const double rate = static_cast<double>(r.failed) / static_cast<double>(r.seeds);
  const std::string claim =
      fmt::format("the family-wise false-alarm rate is <= {:g}", kCheckFamilyAlpha);
  const RateVerdict v =
      claimed_rate_verdict(false_alarm_refuted(r, level), false_alarm_shown(r), r.seeds,
                           seeds_to_show_false_alarm(r), seeds_to_decide_false_alarm(level), claim);
  return {"false-alarm[sound]", v.verdict,
          fmt::format("{}; some check failed in {} of {} seeds (rate {:.4f}; one-sided exact "
                      "Clopper-Pearson: 95% upper bound {:.3g}, FAIL when the {:.3g}-level lower "
                      "bound {:.3g} exceeds {:g}){}",
                      v.text, r.failed, r.seeds, rate, rate_upper_bound(r, kShownLevel), level,
                      rate_lower_bound(r, level), kCheckFamilyAlpha,
                      caught.empty() ? "" : "; failing: " + caught)};
}

CheckOutcome power_line(const std::string& d, const Rate& r, double level,
                        const std::string& caught) {
  const double rate = static_cast<double>(r.failed) / static_cast<double>(r.seeds);
  const std::string claim = fmt::format("the detection rate is >= {:g}", kPowerTarget);
  const RateVerdict v =
      claimed_rate_verdict(power_refuted(r, level), power_shown(r), r.seeds, seeds_to_show_power(r),
                           seeds_to_decide_power(level), claim);
  return {fmt::format("power[{}]", d), v.verdict,
          fmt::format("{}; detected in {} of {} seeds (rate {:.4f}; one-sided exact "
                      "Clopper-Pearson: 95% lower bound {:.3g}, FAIL when the {:.3g}-level upper "
                      "bound {:.3g} is below {:g}); by: {}",
                      v.text, r.failed, r.seeds, rate, rate_lower_bound(r, kShownLevel), level,
                      rate_upper_bound(r, level), kPowerTarget,
                      caught.empty() ? std::string("nothing") : caught)};
}

}  // namespace

std::vector<CheckOutcome> check_power_table(const CsvTable& table, double alpha) {
  const PowerRates pr = power_rates(table);
  std::vector<std::string> defects;
  for (const auto& key : pr.order)
    if (std::get<1>(key) == "all") defects.push_back(std::get<0>(key));
  std::vector<CheckOutcome> out;
  const double level = alpha / static_cast<double>(std::max<std::size_t>(defects.size(), 1));
  for (const auto& d : defects) {
    const Rate& r = pr.rates.at({d, "all", "any"});
    out.push_back(d == "sound" ? false_alarm_line(r, level, caught_by(pr, d))
                               : power_line(d, r, level, caught_by(pr, d)));
  }
  return out;
}

namespace power_experiment {  // named: the runner is a unity build

void add_power_family_options(CLI::App& cmd, PowerSizes& z) {
  cmd.add_option("--unbiasedness-n", z.unbiasedness_n, "unbiasedness family: n (empty: off)")
      ->delimiter(',');
  cmd.add_option("--unbiasedness-sigma", z.unbiasedness_sigma, "unbiasedness family: sigma")
      ->delimiter(',');
  cmd.add_option("--unbiasedness-hashes", z.unbiasedness_hashes, "unbiasedness family: hashes")
      ->capture_default_str();
  cmd.add_option("--unbiasedness-batch", z.unbiasedness_batch, "unbiasedness family: batch")
      ->capture_default_str();
  cmd.add_option("--unbiasedness-points", z.unbiasedness_points, "unbiasedness family: offsets")
      ->capture_default_str();
  cmd.add_option("--lags-n", z.lags_n, "lags family: n (empty: off)")->delimiter(',');
  cmd.add_option("--lags-sigma", z.lags_sigma, "lags family: sigma")->delimiter(',');
  cmd.add_option("--lags-hashes", z.lags_hashes, "lags family: hashes (>= 8)")
      ->capture_default_str();
  cmd.add_option("--blocksize-n", z.blocksize_n, "blocksize family: n (empty: off)")
      ->delimiter(',');
  cmd.add_option("--blocksize-sigma", z.blocksize_sigma, "blocksize family: sigma")->delimiter(',');
  cmd.add_option("--blocksize-s", z.blocksize_s, "blocksize family: fixed s")->delimiter(',');
  cmd.add_option("--blocksize-s-log", z.blocksize_s_log, "blocksize family: c in s = ceil(c ln n)")
      ->delimiter(',');
  cmd.add_option("--blocksize-trials", z.blocksize_trials, "blocksize family: trials")
      ->capture_default_str();
  cmd.add_option("--convergence-n", z.convergence_n, "convergence family: n (empty: off)")
      ->delimiter(',');
  cmd.add_option("--convergence-sigma", z.convergence_sigma, "convergence family: sigma")
      ->delimiter(',');
  cmd.add_option("--convergence-s", z.convergence_s, "convergence family: s")->delimiter(',');
  cmd.add_option("--convergence-trials", z.convergence_trials, "convergence family: trials")
      ->capture_default_str();
  cmd.add_option("--hash-law-sigma", z.hash_law_sigma, "hash-law family: sigma (empty: off)")
      ->delimiter(',');
  cmd.add_option("--hash-law-indices", z.hash_law_indices, "hash-law family: hash indices")
      ->capture_default_str();
  cmd.add_option("--hash-law-trials", z.hash_law_trials, "hash-law family: trials per index")
      ->capture_default_str();
  cmd.add_option("--p", z.p, "Failure probability of the bounds, in (0, 1)")->capture_default_str();
}

// Throws UsageError naming the first option whose value the families cannot use.
void validate_power_sizes(const PowerSizes& z) {
  if (z.unbiasedness_n.empty() && z.blocksize_n.empty() && z.convergence_n.empty() &&
      z.lags_n.empty() && z.hash_law_sigma.empty())
    throw UsageError(
        "--unbiasedness-n, --lags-n, --blocksize-n, --convergence-n or --hash-law-sigma: at least "
        "one family needs sizes");
  require_positive_finite("--hash-law-sigma", z.hash_law_sigma);
  require_at_least("--hash-law-indices", z.hash_law_indices, 1);
  require_at_least("--hash-law-trials", z.hash_law_trials, 1);
  require_at_least("--lags-n", z.lags_n, 4);
  require_positive_finite("--lags-sigma", z.lags_sigma);
  require_at_least("--lags-hashes", z.lags_hashes, 8);
  require_at_least("--unbiasedness-n", z.unbiasedness_n, 4);
  require_positive_finite("--unbiasedness-sigma", z.unbiasedness_sigma);
  require_at_least("--unbiasedness-batch", z.unbiasedness_batch, 1);
  require_at_least("--unbiasedness-points", z.unbiasedness_points, 1);
  if (z.unbiasedness_hashes < z.unbiasedness_batch ||
      z.unbiasedness_hashes % z.unbiasedness_batch != 0)
    throw UsageError("--unbiasedness-hashes must be a positive multiple of --unbiasedness-batch");
  require_at_least("--blocksize-n", z.blocksize_n, 1);
  require_positive_finite("--blocksize-sigma", z.blocksize_sigma);
  require_at_least("--blocksize-s", z.blocksize_s, 1);
  require_positive_finite("--blocksize-s-log", z.blocksize_s_log);
  require_at_least("--blocksize-trials", z.blocksize_trials, 1);
  require_at_least("--convergence-n", z.convergence_n, 2);
  require_positive_finite("--convergence-sigma", z.convergence_sigma);
  require_at_least("--convergence-s", z.convergence_s, 1);
  require_at_least("--convergence-trials", z.convergence_trials, 1);
  require_open_unit("--p", z.p);
  for (const auto& [name, n, sigma] :
       {std::tuple{"--unbiasedness", z.unbiasedness_n.size(), z.unbiasedness_sigma.size()},
        std::tuple{"--lags", z.lags_n.size(), z.lags_sigma.size()},
        std::tuple{"--blocksize", z.blocksize_n.size(), z.blocksize_sigma.size()},
        std::tuple{"--convergence", z.convergence_n.size(), z.convergence_sigma.size()}})
    if ((n == 0) != (sigma == 0))
      throw UsageError(fmt::format("{}-n and {}-sigma: give both or neither", name, name));
  if (!z.blocksize_n.empty() && z.blocksize_s.empty() && z.blocksize_s_log.empty())
    throw UsageError("--blocksize-s or --blocksize-s-log needs a value");
  if (!z.convergence_n.empty() && z.convergence_s.empty())
    throw UsageError("--convergence-s needs a value");
}

std::vector<PlantedDefect> parse_defect_option(const std::vector<std::string>& names) {
  std::vector<PlantedDefect> defects;
  try {
    for (const auto& name : names) defects.push_back(parse_planted_defect(name));
  } catch (const InputError& e) {
    throw UsageError(std::string("--defects: ") + e.what());
  }
  for (const auto& d : defects)
    if (d.estimator_bug != EstimatorBug::kNone)
      throw UsageError(fmt::format(
          "--defects: {} is an estimator bug, which no power family computes (the attention "
          "checks' estimator line catches it)",
          d.name()));
  if (defects.empty()) defects = all_planted_defects();
  return defects;
}

struct PowerCell {
  std::size_t defect;  // index into the defects run
  std::uint64_t seed;
};

// Sweep cells are (defect, seed); the summary is power_summary_csv.
class Power : public SweptExperiment<PowerCell> {
 public:
  void declare_options(CLI::App& cmd) override {
    std::string names;
    for (const auto& d : all_planted_defects()) names += (names.empty() ? "" : ", ") + d.name();
    cmd.add_option("--defects", defect_names_, "Samplers to run (default: all of " + names + ")")
        ->delimiter(',');
    cmd.add_option("--seeds", seeds_, "Seeds per sampler (>= 1)")->capture_default_str();
    cmd.add_option("--seed", seed_, "First seed; sampler runs use seed, seed+1, ...")
        ->capture_default_str();
    add_power_family_options(cmd, sizes_);
  }

  void validate(CLI::App&, const SweepOptions&) override {
    defects_ = parse_defect_option(defect_names_);
    require_at_least("--seeds", seeds_, 1);
    validate_power_sizes(sizes_);
  }

  std::vector<std::string> columns() const override { return power_columns(); }

  std::vector<PowerCell> cells() const override {
    std::vector<PowerCell> cells;
    for (std::size_t d = 0; d < defects_.size(); ++d)
      for (std::int64_t k = 0; k < seeds_; ++k)
        cells.push_back({d, seed_ + static_cast<std::uint64_t>(k)});
    return cells;
  }

  std::vector<CsvRow> rows(const PowerCell& x) const override {
    return power_cell_rows(defects_[x.defect], x.seed, sizes_);
  }

  std::string label(const PowerCell& x) const override {
    return fmt::format("{} seed={}", defects_[x.defect].name(), x.seed);
  }

  std::uint64_t seed() const override { return seed_; }

  // Without the hash-law family its sizes say nothing: left out, so a run
  // without it records the config it had before the family existed.
  RecordedOptions recorded_options(const CLI::App&) const override {
    RecordedOptions recorded;
    if (sizes_.hash_law_sigma.empty())
      recorded.omitted = {"hash-law-indices", "hash-law-trials"};
    return recorded;
  }

 private:
  std::vector<std::string> defect_names_;
  std::int64_t seeds_ = 20;
  std::uint64_t seed_ = 1000;
  PowerSizes sizes_;
  std::vector<PlantedDefect> defects_;
};

Action add_power_command(CLI::App& parent) {
  return swept_command(
      parent, "power",
      "False-alarm and detection rates of every check on sound and planted-defect samplers",
      std::make_shared<Power>(), power_summary_csv);
}

const bool registered_power = register_experiment({
    .name = "power",
    .summary =
        "False-alarm and detection rates of every check on sound and planted-defect samplers",
    .add_command = add_power_command,
    .add_bench = {},
    .checker = {.required_columns = power_columns(),
                .run = [](const CsvTable& t, double alpha) { return check_power_table(t, alpha); }},
    .summarize = power_summary_csv,
    .report_section = add_power_report_section,
});

}  // namespace power_experiment

}  // namespace poslsh
