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

struct Interval {
  double mean = 0;
  std::optional<double> low, high;  // 95% Student-t; none for a single value
};

Interval t_interval(const std::vector<double>& x) {
  Interval out{mean(x), {}, {}};
  if (x.size() < 2) return out;
  double ss = 0;
  for (double v : x) ss += (v - out.mean) * (v - out.mean);
  const double k = static_cast<double>(x.size());
  const boost::math::students_t dist(k - 1);
  const double half =
      boost::math::quantile(boost::math::complement(dist, 0.025)) * std::sqrt(ss / (k - 1) / k);
  out.low = out.mean - half, out.high = out.mean + half;
  return out;
}

struct SeedStats {
  std::size_t seeds = 0;
  Interval value;
  std::optional<double> batch_stderr;
  std::optional<Interval> vs_exact;  // paired by seed: this minus exact ALiBi
};

std::map<std::string, double> seed_means(const Group& g) {
  std::map<std::string, double> out;
  for (const auto& [seed, v] : g.values) out[seed] = mean(v);
  return out;
}

// The validation batches' standard error of the mean over seeds.
std::optional<double> batch_stderr(const Group& g) {
  if (g.stderrs.size() != g.values.size() || g.stderrs.empty()) return std::nullopt;
  double var = 0;
  for (const auto& [seed, v] : g.stderrs) var += mean(v) * mean(v);
  return std::sqrt(var) / static_cast<double>(g.stderrs.size());
}

// Every variant of a seed starts from the same weights and sees the same
// batches, so the difference to exact ALiBi is measured seed by seed.
std::optional<Interval> paired_difference(const std::map<std::string, double>& ours,
                                          const std::map<std::string, double>& exact) {
  std::vector<double> d;
  for (const auto& [seed, v] : ours)
    if (exact.count(seed)) d.push_back(v - exact.at(seed));
  if (d.empty()) return std::nullopt;
  return t_interval(d);
}

SeedStats seed_stats(const Group& g, const std::map<std::string, double>* exact) {
  const auto means = seed_means(g);
  std::vector<double> m;
  for (const auto& [seed, v] : means) m.push_back(v);
  SeedStats s{m.size(), t_interval(m), batch_stderr(g), {}};
  if (exact) s.vs_exact = paired_difference(means, *exact);
  return s;
}

// The exact-ALiBi model's own seed means of a loss group's (context, metric).
const Group* exact_group(const std::vector<Group>& all, const Group& g) {
  if (g.key[5] == "output_error") return nullptr;
  for (const auto& e : all)
    if (e.key[0] == "exact" && e.key[2] == "self" && e.key[4] == g.key[4] && e.key[5] == g.key[5])
      return &e;
  return nullptr;
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

CheckOutcome rate_outcome(const RateGroup& g, double level) {
  const std::string check = fmt::format("swapin-rate[{}]", g.name);
  double s_min = INFINITY;
  for (const auto& [trial, xy] : g.trials)
    for (double log_s : xy.first) s_min = std::min(s_min, std::exp(log_s));
  const double boundaries = rate_expected_boundaries(s_min, g.context, g.sigma);
  if (boundaries < kRateMinBoundaries)
    return {check, Verdict::kNotApplicable,
            fmt::format("sigma = {} at n = {}: the smallest s ({}) expects {:.2g} block boundaries "
                        "in the context (s n / (2 sigma)); a trial's error is flat until one "
                        "appears, so the slope needs >= {}",
                        format_double(g.sigma), format_double(g.context), format_double(s_min),
                        boundaries, kRateMinBoundaries)};
  std::vector<double> slopes;
  for (const auto& [trial, xy] : g.trials)
    slopes.push_back(least_squares_slope(xy.first, xy.second));
  if (slopes.size() < kMinRateTrials ||
      std::any_of(slopes.begin(), slopes.end(), [](double s) { return !std::isfinite(s); }))
    return {check, Verdict::kNotApplicable,
            fmt::format("{} trials with two or more s values; the rate test needs >= {}",
                        slopes.size(), kMinRateTrials)};
  const RateInterval ri = rate_interval(slopes, level);
  return {check, Verdict::kInfo,
          fmt::format("descriptive, not a test: nothing proves that a sound estimator's median "
                      "slope lies in [{}, {}] on a trained head (the ratio estimator has an "
                      "O(1/s) bias and a fluctuation whose constants depend on the head's Q, K "
                      "and V; on peaked heads sound runs leave that band; docs/MATH.md §9); "
                      "slope of log ||T* - T~||_F/||T*||_F vs log s over {} independent draws: {}",
                      kRateSlopeLow, kRateSlopeHigh, ri.trials, rate_numbers(ri))};
}

// Summary rows of validation loss at the training context.
struct LossRow {
  std::string variant, train_s, eval, eval_s;
  SeedStats stats;
};

Interval read_interval(const CsvTable& t, std::size_t r, const char* mean, const char* low,
                       const char* high) {
  Interval i{t.number(r, mean), {}, {}};
  if (!t.text(r, low).empty()) i.low = t.number(r, low), i.high = t.number(r, high);
  return i;
}

std::vector<LossRow> validation_losses(const CsvTable& summary, const std::string& context) {
  std::vector<LossRow> out;
  for (std::size_t r = 0; r < summary.size(); ++r) {
    if (summary.text(r, "metric") != "val_bpb" || summary.text(r, "context") != context) continue;
    SeedStats s;
    s.seeds = static_cast<std::size_t>(summary.number(r, "seeds"));
    s.value = read_interval(summary, r, "mean", "seed_ci_low", "seed_ci_high");
    if (!summary.text(r, "vs_exact_mean").empty())
      s.vs_exact = read_interval(summary, r, "vs_exact_mean", "vs_exact_low", "vs_exact_high");
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
  const Interval& v = s.value;
  return v.low ? fmt::format("{:.3f} bpb (95% over {} seeds: [{:.3f}, {:.3f}])", v.mean, s.seeds,
                             *v.low, *v.high)
               : fmt::format("{:.3f} bpb ({} seed)", v.mean, s.seeds);
}

// Against exact ALiBi, by the paired (same seed) difference's interval.
std::string compared(const SeedStats& s) {
  if (!s.vs_exact) return "no exact-ALiBi model of the same seeds to compare with";
  const Interval& d = *s.vs_exact;
  const std::string by = d.low ? fmt::format("{:+.3f} bpb, 95% [{:+.3f}, {:+.3f}] paired by seed",
                                             d.mean, *d.low, *d.high)
                               : fmt::format("{:+.3f} bpb, one seed", d.mean);
  if (d.low && *d.high < 0) return "lower than exact ALiBi (" + by + ")";
  if (d.low && *d.low > 0) return "higher than exact ALiBi (" + by + ")";
  if (d.low) return "not distinguishable from exact ALiBi (" + by + ")";
  return "against exact ALiBi: " + by;
}

std::optional<LossRow> find_loss(const std::vector<LossRow>& rows, const std::string& variant,
                                 const std::string& eval) {
  for (const auto& r : rows)
    if (r.variant == variant && r.eval == eval) return r;
  return std::nullopt;
}

// The training context: the shortest context evaluated (the others are
// multiples of it).
std::string training_context(const CsvTable& summary) {
  std::int64_t shortest = 0;
  for (std::size_t r = 0; r < summary.size(); ++r) {
    const std::int64_t c = std::llround(summary.number(r, "context"));
    if (shortest == 0 || c < shortest) shortest = c;
  }
  return std::to_string(shortest);
}

}  // namespace lm_checks

const std::vector<std::string>& lm_summary_columns() {
  static const std::vector<std::string> columns = {
      "variant",      "train_s",       "eval",         "eval_s",       "context",
      "metric",       "seeds",         "mean",         "seed_ci_low",  "seed_ci_high",
      "batch_stderr", "vs_exact_mean", "vs_exact_low", "vs_exact_high"};
  return columns;
}

std::string lm_summary_csv(const CsvTable& table) {
  std::string out = csv_line(lm_summary_columns());
  const auto all = lm_checks::groups(table);
  for (const lm_checks::Group& g : all) {
    const lm_checks::Group* exact = lm_checks::exact_group(all, g);
    if (exact == &g) exact = nullptr;  // the reference itself
    const auto exact_means =
        exact ? lm_checks::seed_means(*exact) : std::map<std::string, double>{};
    const lm_checks::SeedStats s = lm_checks::seed_stats(g, exact ? &exact_means : nullptr);
    const auto vs = s.vs_exact.value_or(lm_checks::Interval{});
    CsvRow row = g.key;
    row.insert(row.end(),
               {std::to_string(s.seeds), format_double(s.value.mean),
                lm_checks::optional_number(s.value.low), lm_checks::optional_number(s.value.high),
                lm_checks::optional_number(s.batch_stderr),
                s.vs_exact ? format_double(vs.mean) : std::string(),
                lm_checks::optional_number(vs.low), lm_checks::optional_number(vs.high)});
    out += csv_line(row);
  }
  return out;
}

std::vector<CheckOutcome> check_lm_table(const CsvTable& table, double alpha) {
  lm_checks::require_usable(table);
  std::vector<CheckOutcome> out;
  // The swap-in rate lines are descriptive (no level spent): their numbers
  // are shown at the share each had when they were tests.
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
                                   ? "; " + lm_checks::compared(r.stats)
                                   : std::string())});
  return out;
}

std::vector<std::string> lm_findings(const CsvTable& summary) {
  std::vector<std::string> out;
  const std::string n = lm_checks::training_context(summary);
  const auto losses = lm_checks::validation_losses(summary, n);
  const auto exact = lm_checks::find_loss(losses, "exact", "self");
  if (!exact) return {"No exact-ALiBi model in this run: nothing to compare against."};
  out.push_back(
      fmt::format("Exact ALiBi reaches {} on validation text at its training context "
                  "n = {}.",
                  lm_checks::interval(exact->stats), n));
  for (const auto& r : losses) {
    if (r.variant == "exact" && r.eval == "self") continue;
    out.push_back(fmt::format("{}: {}; {}.", lm_checks::describe(r), lm_checks::interval(r.stats),
                              lm_checks::compared(r.stats)));
  }
  return out;
}

LmLossTable lm_loss_table(const CsvTable& summary) {
  std::vector<std::string> contexts;  // in order of appearance: n, 2n, 4n
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> models;
  for (std::size_t r = 0; r < summary.size(); ++r) {
    if (summary.text(r, "metric") != "val_bpb") continue;
    const std::string context = summary.text(r, "context");
    if (std::find(contexts.begin(), contexts.end(), context) == contexts.end())
      contexts.push_back(context);
  }
  std::sort(contexts.begin(), contexts.end(),
            [](const auto& a, const auto& b) { return std::stoll(a) < std::stoll(b); });
  for (const auto& context : contexts)
    for (const auto& r : lm_checks::validation_losses(summary, context)) {
      const std::string model = lm_checks::describe(r);
      auto it = std::find_if(models.begin(), models.end(),
                             [&](const auto& m) { return m.first == model; });
      if (it == models.end()) it = models.insert(models.end(), {model, {}});
      const lm_checks::Interval& v = r.stats.value;
      it->second[context] = v.low ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", v.mean, *v.low, *v.high)
                                  : fmt::format("{:.3f}", v.mean);
    }
  const std::string n = lm_checks::training_context(summary);
  std::map<std::string, std::string> vs_exact;
  for (const auto& r : lm_checks::validation_losses(summary, n))
    if (r.stats.vs_exact && !(r.variant == "exact" && r.eval == "self")) {
      const lm_checks::Interval& d = *r.stats.vs_exact;
      vs_exact[lm_checks::describe(r)] =
          d.low ? fmt::format("{:+.3f} [{:+.3f}, {:+.3f}]", d.mean, *d.low, *d.high)
                : fmt::format("{:+.3f}", d.mean);
    }
  LmLossTable t;
  t.header.push_back("model (validation bits/byte, 95% over seeds)");
  for (const auto& c : contexts) t.header.push_back("n = " + c);
  t.header.push_back(fmt::format("minus exact ALiBi at n = {} (paired by seed)", n));
  for (const auto& [model, cells] : models) {
    t.rows.push_back({model});
    for (const auto& c : contexts) t.rows.back().push_back(cells.count(c) ? cells.at(c) : "");
    t.rows.back().push_back(vs_exact.count(model) ? vs_exact.at(model) : "");
  }
  return t;
}

}  // namespace poslsh
