// The lm table's summary, checks and findings (experiments/lm.h).
#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <map>
#include <optional>

#include "experiments/lm.h"
#include "runner/cli_common.h"
#include "runner/least_squares.h"
#include "runner/rate_interval.h"

namespace poslsh {

// Named, not anonymous: the unity build puts other experiments' helpers beside these.
namespace lm_checks {

const std::vector<std::string> kMetrics = {"train_bpb", "val_bpb", "test_bpb", "output_error"};
const std::vector<std::string> kKeyColumns = {"variant", "train_s", "eval",
                                              "eval_s",  "context", "metric"};

// One summary row's worth of measurements: per seed, the values (output
// errors: every trial, layer and head) and the batch standard errors.
struct Group {
  std::vector<std::string> key;
  std::map<std::string, std::vector<double>> values, stderrs;  // by seed
};

std::vector<Group> groups(const CsvTable& t) {
  std::vector<Group> out;
  std::map<std::vector<std::string>, std::size_t> index;
  for (std::size_t r = 0; r < t.size(); ++r) {
    std::vector<std::string> key;
    for (const auto& c : kKeyColumns) key.push_back(t.text(r, c));
    const auto [it, fresh] = index.try_emplace(key, out.size());
    if (fresh) out.push_back({key, {}, {}});
    Group& g = out[it->second];
    const std::string& seed = t.text(r, "seed");
    g.values[seed].push_back(t.number(r, "value"));
    if (!t.text(r, "stderr").empty()) g.stderrs[seed].push_back(t.number(r, "stderr"));
  }
  return out;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

struct SeedStats {
  std::size_t seeds = 0;
  double mean = 0;
  std::optional<double> low, high, batch_stderr;
};

// Mean over seeds of the seeds' means; a 95% Student-t interval over them.
SeedStats seed_stats(const Group& g) {
  std::vector<double> m;
  for (const auto& [seed, v] : g.values) m.push_back(mean(v));
  SeedStats s{m.size(), mean(m), {}, {}, {}};
  if (m.size() >= 2) {
    double ss = 0;
    for (double x : m) ss += (x - s.mean) * (x - s.mean);
    const double k = static_cast<double>(m.size());
    const boost::math::students_t dist(k - 1);
    const double half =
        boost::math::quantile(boost::math::complement(dist, 0.025)) * std::sqrt(ss / (k - 1) / k);
    s.low = s.mean - half, s.high = s.mean + half;
  }
  if (g.stderrs.size() == g.values.size() && !g.stderrs.empty()) {
    double var = 0;
    for (const auto& [seed, v] : g.stderrs) var += mean(v) * mean(v);
    s.batch_stderr = std::sqrt(var) / static_cast<double>(g.stderrs.size());
  }
  return s;
}

std::string optional_number(const std::optional<double>& v) {
  return v ? format_double(*v) : std::string();
}

void require_usable(const CsvTable& t) {
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (std::find(kMetrics.begin(), kMetrics.end(), t.text(r, "metric")) == kMetrics.end())
      unusable(fmt::format("row {}, column metric: expected one of {}, got '{}'",
                           CsvTable::line_of(r), fmt::join(kMetrics, ", "), t.text(r, "metric")));
    if (!std::isfinite(t.number(r, "value")))
      unusable(fmt::format("row {}, column value: not a finite number", CsvTable::line_of(r)));
  }
}

// The swap-in rate: per trial, slope of log output_error vs log eval_s.
struct RateGroup {
  std::string name;
  double sigma = 0, context = 0;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> trials;  // x, y
};

std::vector<RateGroup> rate_groups(const CsvTable& t) {
  std::vector<RateGroup> out;
  std::map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (t.text(r, "metric") != "output_error") continue;
    const std::string name = fmt::format("seed={},layer={},head={}", t.text(r, "seed"),
                                         t.text(r, "layer"), t.text(r, "head"));
    const auto [it, fresh] = index.try_emplace(name, out.size());
    if (fresh) out.push_back({name, t.number(r, "sigma"), t.number(r, "context"), {}});
    auto& [x, y] = out[it->second].trials[t.text(r, "trial")];
    x.push_back(std::log(t.number(r, "eval_s")));
    y.push_back(std::log(t.number(r, "value")));
  }
  return out;
}

// Per trial the hashes are nested (hash k is the same for every s), so a
// trial's error only moves when a new hash puts a block boundary inside the
// context: with fewer than kRateBoundaries expected boundaries per hash
// (n / E[pitch] = n / (2 sigma)) a trial's curve is mostly flat whatever the
// estimator's quality, and its log-log slope says nothing about the rate.
constexpr double kRateBoundaries = 2;

CheckOutcome rate_outcome(const RateGroup& g, double level) {
  const std::string check = fmt::format("swapin-rate[{}]", g.name);
  if (g.context / (2 * g.sigma) < kRateBoundaries)
    return {check, Verdict::kNotApplicable,
            fmt::format("sigma = {} at n = {}: {:.2g} expected block boundaries per hash in the "
                        "context; the per-trial log-log slope needs >= {}",
                        format_double(g.sigma), format_double(g.context),
                        g.context / (2 * g.sigma), kRateBoundaries)};
  std::vector<double> slopes;
  for (const auto& [trial, xy] : g.trials) slopes.push_back(least_squares_slope(xy.first, xy.second));
  if (slopes.size() < kMinRateTrials || std::any_of(slopes.begin(), slopes.end(), [](double s) {
        return !std::isfinite(s);
      }))
    return {check, Verdict::kNotApplicable,
            fmt::format("{} trials with two or more s values; the rate test needs >= {}",
                        slopes.size(), kMinRateTrials)};
  const RateInterval ri = rate_interval(slopes, level);
  return {check, rate_verdict(ri),
          fmt::format("slope of log ||T* - T~||_F/||T*||_F vs log s: mean {:.3f}, interval "
                      "[{:.3f}, {:.3f}] at level {:.2g} over {} trials; band [{}, {}]{}",
                      ri.mean, ri.low, ri.high, level, slopes.size(), kRateSlopeLow,
                      kRateSlopeHigh, untestable_note(ri))};
}

// Summary rows of validation loss at the training context.
struct LossRow {
  std::string variant, train_s, eval, eval_s;
  SeedStats stats;
};

std::vector<LossRow> validation_losses(const CsvTable& summary, const std::string& context) {
  std::vector<LossRow> out;
  for (std::size_t r = 0; r < summary.size(); ++r) {
    if (summary.text(r, "metric") != "val_bpb" || summary.text(r, "context") != context) continue;
    SeedStats s;
    s.seeds = static_cast<std::size_t>(summary.number(r, "seeds"));
    s.mean = summary.number(r, "mean");
    if (!summary.text(r, "seed_ci_low").empty())
      s.low = summary.number(r, "seed_ci_low"), s.high = summary.number(r, "seed_ci_high");
    out.push_back({summary.text(r, "variant"), summary.text(r, "train_s"), summary.text(r, "eval"),
                   summary.text(r, "eval_s"), s});
  }
  return out;
}

std::string describe(const LossRow& r) {
  std::string what = r.variant == "lsh" ? fmt::format("lsh (s = {})", r.train_s) : r.variant;
  if (r.eval == "exact") what += " with exact ALiBi swapped in";
  if (r.eval == "lsh") what += fmt::format(" with positional LSH at s = {} swapped in", r.eval_s);
  return what;
}

std::string interval(const SeedStats& s) {
  return s.low ? fmt::format("{:.3f} bpb (95% over {} seeds: [{:.3f}, {:.3f}])", s.mean, s.seeds,
                             *s.low, *s.high)
               : fmt::format("{:.3f} bpb ({} seed)", s.mean, s.seeds);
}

// "lower", "higher" or "indistinguishable" by the seeds' intervals.
std::string compared(const SeedStats& a, const SeedStats& b) {
  if (a.low && b.low && *a.high < *b.low) return "lower than";
  if (a.low && b.low && *a.low > *b.high) return "higher than";
  if (a.low && b.low) return "not distinguishable (overlapping intervals) from";
  return a.mean < b.mean ? "lower (one seed: no interval) than" : "higher (one seed: no interval) than";
}

std::optional<LossRow> find_loss(const std::vector<LossRow>& rows, const std::string& variant,
                                 const std::string& eval) {
  for (const auto& r : rows)
    if (r.variant == variant && r.eval == eval) return r;
  return std::nullopt;
}

std::string training_context(const CsvTable& summary) {
  std::int64_t smallest = 0;
  for (std::size_t r = 0; r < summary.size(); ++r)
    if (summary.text(r, "metric") == "train_bpb") smallest = std::llround(summary.number(r, "context"));
  return std::to_string(smallest);
}

}  // namespace lm_checks

const std::vector<std::string>& lm_summary_columns() {
  static const std::vector<std::string> columns = {
      "variant", "train_s", "eval",  "eval_s",      "context",      "metric",
      "seeds",   "mean",    "seed_ci_low", "seed_ci_high", "batch_stderr"};
  return columns;
}

std::string lm_summary_csv(const CsvTable& table) {
  std::string out = csv_line(lm_summary_columns());
  for (const lm_checks::Group& g : lm_checks::groups(table)) {
    const lm_checks::SeedStats s = lm_checks::seed_stats(g);
    CsvRow row = g.key;
    row.insert(row.end(), {std::to_string(s.seeds), format_double(s.mean), lm_checks::optional_number(s.low),
                           lm_checks::optional_number(s.high), lm_checks::optional_number(s.batch_stderr)});
    out += csv_line(row);
  }
  return out;
}

std::vector<CheckOutcome> check_lm_table(const CsvTable& table, double alpha) {
  lm_checks::require_usable(table);
  std::vector<CheckOutcome> out;
  const auto rates = lm_checks::rate_groups(table);
  for (const auto& g : rates)
    out.push_back(lm_checks::rate_outcome(g, alpha / static_cast<double>(rates.size())));
  const CsvTable summary = CsvTable::parse(lm_summary_csv(table), "lm summary");
  const std::string n = lm_checks::training_context(summary);
  const auto losses = lm_checks::validation_losses(summary, n);
  const auto exact = lm_checks::find_loss(losses, "exact", "self");
  for (const auto& r : losses)
    out.push_back({fmt::format("lm[{},n={}]", lm_checks::describe(r), n), Verdict::kInfo,
                   fmt::format("validation {}{}", lm_checks::interval(r.stats),
                               exact && !(r.variant == "exact" && r.eval == "self")
                                   ? fmt::format("; {} exact ALiBi's {:.3f}",
                                                 lm_checks::compared(r.stats, exact->stats), exact->stats.mean)
                                   : std::string())});
  return out;
}

std::vector<std::string> lm_findings(const CsvTable& summary) {
  std::vector<std::string> out;
  const std::string n = lm_checks::training_context(summary);
  const auto losses = lm_checks::validation_losses(summary, n);
  const auto exact = lm_checks::find_loss(losses, "exact", "self");
  if (!exact) return {"No exact-ALiBi model in this run: nothing to compare against."};
  out.push_back(fmt::format("Exact ALiBi reaches {} on validation text at its training context "
                            "n = {}.", lm_checks::interval(exact->stats), n));
  for (const auto& r : losses) {
    if (r.variant == "exact" && r.eval == "self") continue;
    out.push_back(fmt::format("{}: {}, {} exact ALiBi ({:+.3f} bpb).", lm_checks::describe(r),
                              lm_checks::interval(r.stats), lm_checks::compared(r.stats, exact->stats),
                              r.stats.mean - exact->stats.mean));
  }
  return out;
}

}  // namespace poslsh
