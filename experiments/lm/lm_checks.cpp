// The lm table's summary, checks and findings (experiments/lm/lm.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "experiments/lm/lm.h"
#include "runner/cli_common.h"
#include "stats/t_interval.h"
#include "stats/least_squares.h"
#include "experiments/checks/rate_interval.h"
#include "runner/sweep.h"  // CsvRow

namespace poslsh {

// Named, not anonymous: the unity build puts other experiments' helpers beside these.
namespace lm_checks {

const std::vector<std::string> kMetrics = {
    "train_bpb",      "val_bpb",      "test_bpb",      "output_error",
    "curve_train_bpb", "curve_val_bpb", "keys_per_query", "expected_blocks"};
const std::vector<std::string> kKeyColumns = {"variant", "train_s", "phase",  "eval",
                                              "eval_s",  "step",    "pos_lo", "pos_hi",
                                              "head",    "context", "metric"};
enum Key { kVariant, kTrainS, kPhase, kEval, kEvalS, kStep, kPosLo, kPosHi, kHead, kContext, kMetric };
// The context-use probe's metrics (python/poslsh/lm/rows.py): PREFIX<w>, w >= 1.
const std::vector<std::string> kProbePrefixes = {"val_bpb_ctx", "val_bpb_beyond"};

bool probe_metric(const std::string& metric) {
  for (const std::string& p : kProbePrefixes)
    if (metric.size() > p.size() && metric.compare(0, p.size(), p) == 0 &&
        std::all_of(metric.begin() + static_cast<std::ptrdiff_t>(p.size()), metric.end(),
                    [](char c) { return c >= '0' && c <= '9'; }))
      return true;
  return false;
}

// One summary row's worth of measurements: per seed, the values (output
// errors: every trial, layer and head) and the batch standard errors.
struct Group {
  std::vector<std::string> key;
  std::map<std::string, std::vector<double>> values, stderrs, step_seconds;  // by seed
};

std::vector<Group> groups(const CsvTable& t) {
  std::vector<Group> out;
  std::map<std::vector<std::string>, std::size_t> index;
  for (std::size_t r = 0; r < t.size(); ++r) {
    std::vector<std::string> key;
    for (const auto& c : kKeyColumns) key.push_back(t.text(r, c));
    if (key[kMetric] == "output_error") key[kHead] = "";  // pooled over heads
    const auto [it, fresh] = index.try_emplace(key, out.size());
    if (fresh) out.push_back({key, {}, {}, {}});
    Group& g = out[it->second];
    const std::string& seed = t.text(r, "seed");
    g.values[seed].push_back(t.number(r, "value"));
    if (!t.text(r, "stderr").empty()) g.stderrs[seed].push_back(t.number(r, "stderr"));
    if (!t.text(r, "step_cpu_seconds").empty())
      g.step_seconds[seed].push_back(t.number(r, "step_cpu_seconds"));
  }
  return out;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

using Interval = stats::TInterval;
using stats::t_interval;

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
// batches, so the difference to exact ALiBi is measured seed by seed. A
// baseline without a seed (the n-gram: one value, no training randomness)
// pairs with every seed of the other side.
std::optional<Interval> paired_difference(const std::map<std::string, double>& ours,
                                          const std::map<std::string, double>& exact) {
  std::vector<double> d;
  const auto only = [](const std::map<std::string, double>& m) {
    return m.size() == 1 && m.begin()->first.empty() ? std::optional<double>(m.begin()->second)
                                                     : std::nullopt;
  };
  if (const auto fixed = only(exact))
    for (const auto& [seed, v] : ours) d.push_back(v - *fixed);
  else if (const auto fixed = only(ours))
    for (const auto& [seed, v] : exact) d.push_back(*fixed - v);
  for (const auto& [seed, v] : ours)
    if (exact.count(seed) && !seed.empty()) d.push_back(v - exact.at(seed));
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

bool is_loss(const std::string& metric) { return metric.find("bpb") != std::string::npos; }

// The reference model's own group of a loss group (variant `reference`:
// exact ALiBi, or fixed-block for lsh): same phase (the fine-tunes compare
// with the control fine-tuned from the same base), step, positions and
// context; its own attention, or before fine-tuning for the swap-in value.
const Group* reference_group(const std::vector<Group>& all, const Group& g,
                             const std::string& reference = "exact") {
  if (!is_loss(g.key[kMetric])) return nullptr;
  const std::string eval = g.key[kEval] == "swapin" ? "swapin" : "self";
  // The baselines compare with the models trained from scratch.
  const std::string phase = g.key[kPhase] == "baseline" ? "train" : g.key[kPhase];
  for (const auto& e : all)
    if (e.key[kVariant] == reference && e.key[kEval] == eval && e.key[kPhase] == phase &&
        e.key[kStep] == g.key[kStep] && e.key[kPosLo] == g.key[kPosLo] &&
        e.key[kPosHi] == g.key[kPosHi] && e.key[kContext] == g.key[kContext] &&
        e.key[kMetric] == g.key[kMetric])
      return &e;
  return nullptr;
}

// The paper's claims 2 and 3 compare positional LSH with no positional bias
// and with its fixed blocks: lsh's own (or before fine-tuning, swap-in)
// losses against `reference`'s (nobias, fixed-block), seed by seed; none for
// other variants or evaluations, or where the reference was not run.
std::optional<Interval> lsh_vs(const std::vector<Group>& all, const Group& g,
                               const std::string& reference) {
  if (g.key[kVariant] != "lsh" || (g.key[kEval] != "self" && g.key[kEval] != "swapin"))
    return std::nullopt;
  const Group* other = reference_group(all, g, reference);
  if (!other) return std::nullopt;
  return paired_difference(seed_means(g), seed_means(*other));
}

// The training context n of a table: its shortest validation context.
std::string table_context(const CsvTable& t) {
  std::int64_t shortest = 0;
  for (std::size_t r = 0; r < t.size(); ++r)
    if (t.text(r, "metric") == "val_bpb") {
      const std::int64_t c = std::llround(t.number(r, "context"));
      if (shortest == 0 || c < shortest) shortest = c;
    }
  return std::to_string(shortest);
}

// Claim 4's own yardstick: a model's loss on the positions beyond n (pos_lo
// >= n, at a longer context) minus its loss at n, net of exact ALiBi's same
// difference, seed by seed: (m_beyond - m_n) - (e_beyond - e_n). The net
// matters: the windows at 2n are other bytes than those at n, and that text
// difference, common to every model, is as large as the effect (a raw
// m_beyond - m_n reads the text). Every variant shares the windows, so the
// net difference is the model's degradation beyond n relative to ALiBi's; a
// model that extrapolates as ALiBi does stays near 0, the sinusoidal control
// must come out above the margin. None for exact ALiBi itself.
std::optional<Interval> vs_own_n(const std::vector<Group>& all, const Group& g,
                                 const std::string& n) {
  if (!is_loss(g.key[kMetric]) || g.key[kPosLo].empty() || std::stod(g.key[kPosLo]) < std::stod(n))
    return std::nullopt;
  const Group* own = nullptr;
  for (const auto& e : all)
    if (e.key[kVariant] == g.key[kVariant] && e.key[kTrainS] == g.key[kTrainS] &&
        e.key[kPhase] == g.key[kPhase] && e.key[kEval] == g.key[kEval] &&
        e.key[kEvalS] == g.key[kEvalS] && e.key[kStep] == g.key[kStep] && e.key[kPosLo].empty() &&
        e.key[kHead] == g.key[kHead] && e.key[kContext] == n && e.key[kMetric] == g.key[kMetric])
      own = &e;
  const Group* exact = reference_group(all, g);
  const Group* exact_n = own ? reference_group(all, *own) : nullptr;
  if (!own || !exact || !exact_n || exact == &g) return std::nullopt;
  const auto m = seed_means(g), mn = seed_means(*own), e = seed_means(*exact),
             en = seed_means(*exact_n);
  std::vector<double> d;
  for (const auto& [seed, v] : m)
    if (mn.count(seed) && e.count(seed) && en.count(seed))
      d.push_back((v - mn.at(seed)) - (e.at(seed) - en.at(seed)));
  if (d.empty()) return std::nullopt;
  return t_interval(d);
}

// The one margin of a table (every row carries the margin its run declared);
// NaN for a table without rows.
double table_margin(const CsvTable& t) {
  double margin = NAN;
  for (std::size_t r = 0; r < t.size(); ++r) {
    const double m = t.number(r, "margin");
    if (!(m > 0 && std::isfinite(m)))
      unusable(fmt::format("row {}, column margin: expected a finite number > 0, got '{}'",
                           CsvTable::line_of(r), t.text(r, "margin")));
    if (r > 0 && m != margin)
      unusable(
          fmt::format("row {}, column margin: {} differs from the table's {} (one margin a run)",
                      CsvTable::line_of(r), format_value(m), format_value(margin)));
    margin = m;
  }
  return margin;
}

// Mean over seeds of each seed's mean seconds per step; none without timings.
std::optional<double> step_seconds(const Group& g) {
  if (g.step_seconds.empty()) return std::nullopt;
  std::vector<double> m;
  for (const auto& [seed, v] : g.step_seconds) m.push_back(mean(v));
  return mean(m);
}

std::string optional_number(const std::optional<double>& v) {
  return v ? format_value(*v) : std::string();
}

void require_usable(const CsvTable& t) {
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (std::find(kMetrics.begin(), kMetrics.end(), t.text(r, "metric")) == kMetrics.end() &&
        !probe_metric(t.text(r, "metric")))
      unusable(fmt::format("row {}, column metric: expected one of {} or {}<w>, got '{}'",
                           CsvTable::line_of(r), fmt::join(kMetrics, ", "),
                           fmt::join(kProbePrefixes, "<w>, "), t.text(r, "metric")));
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
                        format_value(g.sigma), format_value(g.context), format_value(s_min),
                        boundaries, kRateMinBoundaries)};
  std::vector<double> slopes;
  for (const auto& [trial, xy] : g.trials)
    slopes.push_back(stats::least_squares_slope(xy.first, xy.second));
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

// Summary rows of a final loss (whole windows or a position bucket, no
// curve step, no head), with the paired differences the summary computed.
struct LossRow {
  std::string variant, train_s, phase, eval, eval_s, pos_lo, pos_hi, context;
  SeedStats stats;
  std::optional<Interval> vs_fixed_block, vs_nobias, vs_n;
  double margin = NAN;
};

Interval read_interval(const CsvTable& t, std::size_t r, const char* mean, const char* low,
                       const char* high) {
  Interval i{t.number(r, mean), {}, {}};
  if (!t.text(r, low).empty()) i.low = t.number(r, low), i.high = t.number(r, high);
  return i;
}

std::optional<Interval> read_difference(const CsvTable& t, std::size_t r, const std::string& vs) {
  // (a summary written before a column existed has none)
  if (!t.has_column(vs + "_mean") || t.text(r, vs + "_mean").empty()) return std::nullopt;
  return read_interval(t, r, (vs + "_mean").c_str(), (vs + "_low").c_str(), (vs + "_high").c_str());
}

bool final_model_row(const CsvTable& summary, std::size_t r) {
  return summary.text(r, "step").empty() && summary.text(r, "head").empty();
}

LossRow loss_row(const CsvTable& summary, std::size_t r) {
  LossRow out{summary.text(r, "variant"), summary.text(r, "train_s"), summary.text(r, "phase"),
              summary.text(r, "eval"),    summary.text(r, "eval_s"),  summary.text(r, "pos_lo"),
              summary.text(r, "pos_hi"),  summary.text(r, "context"), {}, {}, {}, {}, NAN};
  out.stats.seeds = static_cast<std::size_t>(summary.number(r, "seeds"));
  out.stats.value = read_interval(summary, r, "mean", "seed_ci_low", "seed_ci_high");
  out.stats.vs_exact = read_difference(summary, r, "vs_exact");
  out.vs_fixed_block = read_difference(summary, r, "vs_fixed_block");
  out.vs_nobias = read_difference(summary, r, "vs_nobias");
  out.vs_n = read_difference(summary, r, "vs_n");
  out.margin = summary.number(r, "margin");
  return out;
}

std::vector<LossRow> validation_losses(const CsvTable& summary, const std::string& context,
                                       const std::string& phase = "train",
                                       const std::string& pos_lo = "",
                                       const std::string& pos_hi = "") {
  std::vector<LossRow> out;
  for (std::size_t r = 0; r < summary.size(); ++r)
    if (summary.text(r, "metric") == "val_bpb" && summary.text(r, "context") == context &&
        summary.text(r, "phase") == phase && final_model_row(summary, r) &&
        summary.text(r, "pos_lo") == pos_lo && summary.text(r, "pos_hi") == pos_hi)
      out.push_back(loss_row(summary, r));
  return out;
}

// The position buckets beyond the training context n (pos_lo >= n) of
// from-scratch models at every longer context: the extrapolation (claim 4).
std::vector<LossRow> extrapolation_losses(const CsvTable& summary, const std::string& n) {
  std::vector<LossRow> out;
  for (std::size_t r = 0; r < summary.size(); ++r)
    if (summary.text(r, "metric") == "val_bpb" && summary.text(r, "phase") == "train" &&
        final_model_row(summary, r) && !summary.text(r, "pos_lo").empty() &&
        summary.number(r, "pos_lo") >= std::stod(n))
      out.push_back(loss_row(summary, r));
  return out;
}

// The phases of a summary's trained models: from scratch first, then the
// fine-tunes in table order (not the n-gram baselines' "baseline").
std::vector<std::string> phases(const CsvTable& summary) {
  std::vector<std::string> out = {"train"};
  for (std::size_t r = 0; r < summary.size(); ++r)
    if (summary.text(r, "phase") != "baseline" &&
        std::find(out.begin(), out.end(), summary.text(r, "phase")) == out.end())
      out.push_back(summary.text(r, "phase"));
  return out;
}

// "finetune": from exact ALiBi (the name it always had); "finetune-B": from B.
std::string base_of(const std::string& phase) {
  return phase == "finetune" ? "exact" : phase.substr(std::string("finetune-").size());
}

std::string model_name(const std::string& variant, const std::string& s) {
  if (variant == "lsh") return fmt::format("positional LSH, s = {}", s);
  if (variant == "fixed") return fmt::format("shifted fixed grids, cost of s = {}", s);
  if (variant == "fixed-block") return "fixed blocks (one grid of width 2 sigma)";
  if (variant == "window") return fmt::format("window, cost of s = {}", s);
  if (variant == "exact") return "exact ALiBi";
  if (variant == "nobias") return "no positional bias";
  if (variant == "sinusoidal") return "sinusoidal positions, no ALiBi";
  if (variant.rfind("ngram-", 0) == 0)
    return fmt::format("byte {}-gram (order {}, Witten-Bell)", std::stoi(variant.substr(6)) + 1,
                       variant.substr(6));
  return variant;
}

std::string describe(const LossRow& r) {
  std::string what = model_name(r.variant, r.train_s);
  if (r.eval == "exact") what += ", exact ALiBi swapped in";
  if (r.eval == "lsh") what += fmt::format(", positional LSH at s = {} swapped in", r.eval_s);
  if (r.eval == "swapin") what += ", before fine-tuning";
  return what;
}

std::string interval(const SeedStats& s) {
  const Interval& v = s.value;
  return v.low ? fmt::format("{:.3f} bpb (95% over {} seeds: [{:.3f}, {:.3f}])", v.mean, s.seeds,
                             *v.low, *v.high)
               : fmt::format("{:.3f} bpb ({} seed)", v.mean, s.seeds);
}

// Against a reference by the paired (same seed) difference's interval and
// its verdict at the margin (lm_margin_verdict).
std::string compared(const std::optional<Interval>& d, double margin,
                     const std::string& reference = "exact ALiBi") {
  if (!d) return "no " + reference + " model of the same seeds to compare with";
  const std::string m = format_value(margin);
  if (!d->low)
    return fmt::format("against {}: {:+.3f} bpb, one seed: undecided at the margin +-{} bpb",
                       reference, d->mean, m);
  const std::string by = fmt::format("{:+.3f} bpb, 95% [{:+.3f}, {:+.3f}] paired by seed",
                                     d->mean, *d->low, *d->high);
  const std::string verdict = lm_margin_verdict(*d->low, *d->high, margin);
  if (verdict == "comparable")
    return fmt::format("comparable to {} within the margin +-{} bpb ({})", reference, m, by);
  if (verdict == "undecided")
    return fmt::format("undecided against {} at the margin +-{} bpb: the interval is not wholly "
                       "inside or outside it ({})",
                       reference, m, by);
  return fmt::format("{} than {} by more than the margin {} bpb ({})", verdict, reference, m, by);
}

std::string compared(const LossRow& r, const std::string& reference = "exact ALiBi") {
  return compared(r.stats.vs_exact, r.margin, reference);
}

std::optional<LossRow> find_loss(const std::vector<LossRow>& rows, const std::string& variant,
                                 const std::string& eval, const std::string& s = "") {
  for (const auto& r : rows)
    if (r.variant == variant && r.eval == eval && r.train_s == s) return r;
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

// A summary value of (variant, s, phase, metric) over the whole model (head
// empty, no step, whole windows): its mean over seeds, or none.
std::optional<double> model_value(const CsvTable& summary, const std::string& variant,
                                  const std::string& s, const std::string& phase,
                                  const std::string& metric, const char* column = "mean") {
  for (std::size_t r = 0; r < summary.size(); ++r)
    if (summary.text(r, "metric") == metric && summary.text(r, "variant") == variant &&
        summary.text(r, "train_s") == s && summary.text(r, "phase") == phase &&
        final_model_row(summary, r) && summary.text(r, "pos_lo").empty() &&
        summary.text(r, "eval") == "self" && !summary.text(r, column).empty())
      return summary.number(r, column);
  return std::nullopt;
}

std::string mean_and_interval(const Interval& v, const char* sign = "") {
  const std::string f = std::string("{:") + sign + ".3f}";
  if (!v.low) return fmt::format(fmt::runtime(f), v.mean);
  return fmt::format(fmt::runtime(f + " [" + f + ", " + f + "]"), v.mean, *v.low, *v.high);
}

// "sigma = 4: 32.8, ..." from the expected_blocks rows.
std::string expected_blocks_text(const CsvTable& summary) {
  std::vector<std::string> out;
  std::map<std::string, bool> seen;
  for (std::size_t r = 0; r < summary.size(); ++r)
    if (summary.text(r, "metric") == "expected_blocks" && !seen[summary.text(r, "head")]) {
      seen[summary.text(r, "head")] = true;
      out.push_back(fmt::format("head {}: {:.1f}", summary.text(r, "head"), summary.number(r, "mean")));
    }
  return fmt::format("{}", fmt::join(out, ", "));
}

}  // namespace lm_checks

std::string lm_margin_verdict(double low, double high, double margin) {
  if (!(low <= high) || !(margin > 0) || !std::isfinite(margin)) return "undecided";
  if (-margin <= low && high <= margin) return "comparable";
  if (low > margin) return "worse";
  if (high < -margin) return "better";
  return "undecided";
}

const std::vector<std::string>& lm_summary_columns() {
  static const std::vector<std::string> columns = {
      "variant",      "train_s",         "phase",          "eval",
      "eval_s",       "step",            "pos_lo",         "pos_hi",
      "head",         "context",         "metric",         "seeds",
      "mean",         "seed_ci_low",     "seed_ci_high",   "batch_stderr",
      "margin",       "vs_exact_mean",   "vs_exact_low",   "vs_exact_high",
      "vs_exact_verdict", "vs_fixed_block_mean", "vs_fixed_block_low", "vs_fixed_block_high",
      "vs_fixed_block_verdict", "vs_nobias_mean", "vs_nobias_low", "vs_nobias_high",
      "vs_nobias_verdict", "vs_n_mean", "vs_n_low", "vs_n_high", "vs_n_verdict",
      "step_cpu_seconds"};
  return columns;
}

namespace lm_checks {

// A paired difference's summary fields: mean, low, high, verdict at the margin
// (one seed: no interval, undecided); all empty without a reference.
std::vector<std::string> difference_fields(const std::optional<Interval>& d, double margin) {
  if (!d) return {"", "", "", ""};
  return {format_value(d->mean), optional_number(d->low), optional_number(d->high),
          d->low ? lm_margin_verdict(*d->low, *d->high, margin) : "undecided"};
}

}  // namespace lm_checks

std::string lm_summary_csv(const CsvTable& table) {
  std::string out = csv_line(lm_summary_columns());
  const double margin = lm_checks::table_margin(table);
  const auto all = lm_checks::groups(table);
  const std::string n = lm_checks::table_context(table);
  for (const lm_checks::Group& g : all) {
    const lm_checks::Group* exact = lm_checks::reference_group(all, g);
    if (exact == &g) exact = nullptr;  // the reference itself
    const auto exact_means =
        exact ? lm_checks::seed_means(*exact) : std::map<std::string, double>{};
    const lm_checks::SeedStats s = lm_checks::seed_stats(g, exact ? &exact_means : nullptr);
    std::vector<std::string> row = g.key;
    row.insert(row.end(),
               {std::to_string(s.seeds), format_value(s.value.mean),
                lm_checks::optional_number(s.value.low), lm_checks::optional_number(s.value.high),
                lm_checks::optional_number(s.batch_stderr), format_value(margin)});
    for (const auto& f : lm_checks::difference_fields(s.vs_exact, margin)) row.push_back(f);
    for (const std::string reference : {"fixed-block", "nobias"})
      for (const auto& f :
           lm_checks::difference_fields(lm_checks::lsh_vs(all, g, reference), margin))
        row.push_back(f);
    for (const auto& f : lm_checks::difference_fields(lm_checks::vs_own_n(all, g, n), margin))
      row.push_back(f);
    row.push_back(lm_checks::optional_number(lm_checks::step_seconds(g)));
    out += csv_line(row);
  }
  return out;
}

namespace lm_checks {

// "fine-tuned from no positional bias, " etc.: the phase in a line's name.
std::string phase_prefix(const std::string& phase) {
  if (phase == "train") return "";
  if (phase == "finetune") return "fine-tuned, ";
  return fmt::format("fine-tuned from {}, ", model_name(base_of(phase), ""));
}

std::string reference_of(const std::string& phase) {
  if (phase == "train") return "exact ALiBi";
  if (phase == "finetune") return "the exact-ALiBi control";
  return fmt::format("the exact-ALiBi control from {}", model_name(base_of(phase), ""));
}

// Each variant's validation loss at n against exact ALiBi, per phase.
void add_loss_lines(const CsvTable& summary, const std::string& n, std::vector<CheckOutcome>& out) {
  for (const std::string& phase : phases(summary))
    for (const auto& r : validation_losses(summary, n, phase))
      out.push_back({fmt::format("lm[{}{},n={}]", phase_prefix(phase), describe(r), n),
                     Verdict::kInfo,
                     fmt::format("validation {}{}", interval(r.stats),
                                 r.stats.vs_exact ? "; " + compared(r, reference_of(phase))
                                                  : std::string())});
}

// Claims 2 and 3: positional LSH minus no positional bias (from scratch)
// and minus the paper's fixed blocks, per s and phase.
void add_baseline_lines(const CsvTable& summary, const std::string& n,
                        std::vector<CheckOutcome>& out) {
  for (const std::string& phase : phases(summary))
    for (const auto& r : validation_losses(summary, n, phase))
      if (r.vs_fixed_block && r.eval == "self")
        out.push_back({fmt::format("lm-vs-fixed-block[{}positional LSH s={},n={}]",
                                   phase_prefix(phase), r.train_s, n),
                       Verdict::kInfo,
                       "the paper's claim 3, validation loss: positional LSH " +
                           compared(r.vs_fixed_block, r.margin, "fixed blocks")});
  for (const auto& r : validation_losses(summary, n))
    if (r.vs_nobias && r.eval == "self")
      out.push_back({fmt::format("lm-vs-nobias[positional LSH s={},n={}]", r.train_s, n),
                     Verdict::kInfo,
                     "the paper's claim 2, validation loss: positional LSH " +
                         compared(r.vs_nobias, r.margin, "no positional bias")});
}

// The models whose loss beyond n is set against their own loss at n (net of
// exact ALiBi's): the claim's model and the control that must fail to extrapolate.
bool extrapolation_yardstick(const std::string& variant) {
  return variant == "lsh" || variant == "sinusoidal";
}

// Claim 4: positional LSH minus exact ALiBi on the positions beyond n; and
// lsh and the sinusoidal control against their own loss at n, net of exact
// ALiBi's (vs_own_n; the control degrading there is what makes "reproduced"
// mean something).
void add_extrapolation_lines(const CsvTable& summary, const std::string& n,
                             std::vector<CheckOutcome>& out) {
  for (const auto& r : extrapolation_losses(summary, n)) {
    if (r.eval != "self") continue;
    const std::string where = fmt::format("positions [{}, {}) at {}", r.pos_lo, r.pos_hi, r.context);
    if (r.variant == "lsh" && r.stats.vs_exact)
      out.push_back({fmt::format("lm-extrapolation[positional LSH s={},{}]", r.train_s, where),
                     Verdict::kInfo,
                     fmt::format("the paper's claim 4, trained at n = {}: validation {}; {}", n,
                                 interval(r.stats), compared(r))});
    if (extrapolation_yardstick(r.variant) && r.vs_n)
      out.push_back({fmt::format("lm-extrapolation-own-n[{},{}]", model_name(r.variant, r.train_s),
                                 where),
                     Verdict::kInfo,
                     fmt::format("{}trained at n = {}: validation {}; {}",
                                 r.variant == "sinusoidal" ? "claim 4's control (must degrade), "
                                                           : "",
                                 n, interval(r.stats),
                                 compared(r.vs_n, r.margin,
                                          fmt::format("its own loss at n = {} (net of exact "
                                                      "ALiBi's same difference)",
                                                      n)))});
  }
}

// How far a paired gap moved over the last 20% of training: its mean over
// seeds (the summary's curve rows, paired by seed on the same validation
// batches) at the last curve point minus at the last point at or before 80%
// of the steps. A verdict read off a gap that still moves describes a point
// in training, not where training goes.
struct GapDrift {
  std::int64_t early_step = 0, last_step = 0;
  double early = NAN, last = NAN, margin = NAN;
  bool settled() const { return std::abs(last - early) <= margin / 2; }
};

// The curve of one model's paired difference `vs` ("vs_exact", ...), by step.
std::map<std::int64_t, double> gap_curve(const CsvTable& summary, const LossRow& r,
                                         const std::string& vs) {
  std::map<std::int64_t, double> out;
  if (!summary.has_column(vs + "_mean")) return out;
  for (std::size_t i = 0; i < summary.size(); ++i)
    if (summary.text(i, "metric") == "curve_val_bpb" && summary.text(i, "variant") == r.variant &&
        summary.text(i, "train_s") == r.train_s && summary.text(i, "phase") == r.phase &&
        summary.text(i, "eval") == "self" && summary.text(i, "context") == r.context &&
        !summary.text(i, "step").empty() && !summary.text(i, vs + "_mean").empty())
      out[std::llround(summary.number(i, "step"))] = summary.number(i, vs + "_mean");
  return out;
}

// None where the model has no curve of that gap; early_step == last_step
// where the curve has no point before the last 20% (then nothing is known).
std::optional<GapDrift> gap_drift(const CsvTable& summary, const LossRow& r,
                                  const std::string& vs) {
  const auto curve = gap_curve(summary, r, vs);
  if (curve.empty()) return std::nullopt;
  GapDrift d;
  d.margin = r.margin;
  std::tie(d.last_step, d.last) = *curve.rbegin();
  std::tie(d.early_step, d.early) = *curve.rbegin();
  for (const auto& [step, gap] : curve)
    if (5 * step <= 4 * d.last_step) std::tie(d.early_step, d.early) = std::pair{step, gap};
  return d;
}

std::string drift_text(const GapDrift& d) {
  if (d.early_step == d.last_step) return "no curve point before the last 20%";
  return fmt::format("{:+.3f} ({})", d.last - d.early, d.settled() ? "settled" : "still moving");
}

// One line per paired comparison with a learning curve: info where the gap
// moved by at most half the margin over the last 20% of training, WARN where
// it moved more (train longer before reading its verdict), n/a where the
// curve has no point before the last 20%.
CheckOutcome drift_outcome(const std::string& name, const GapDrift& d) {
  const std::string check = fmt::format("lm-gap-settled[{}]", name);
  if (d.early_step == d.last_step)
    return {check, Verdict::kNotApplicable,
            fmt::format("the learning curve has no point at or before 80% of the {} steps (set "
                        "curve-every to at most a fifth of the steps)",
                        d.last_step)};
  return {check, d.settled() ? Verdict::kInfo : Verdict::kWarning,
          fmt::format("paired gap {:+.3f} bpb at step {}, {:+.3f} at step {}: moved {:+.3f} over "
                      "the last 20% of training, {} half the margin {}{}",
                      d.early, d.early_step, d.last, d.last_step, d.last - d.early,
                      d.settled() ? "within" : "more than", format_value(d.margin / 2),
                      d.settled() ? "" : "; its verdict describes a point in training")};
}

void add_drift_lines(const CsvTable& summary, const std::string& n,
                     std::vector<CheckOutcome>& out) {
  for (const std::string& phase : phases(summary))
    for (const auto& r : validation_losses(summary, n, phase)) {
      if (r.eval != "self" || r.variant == "exact") continue;
      const std::string model = phase_prefix(phase) + model_name(r.variant, r.train_s);
      const std::pair<const char*, std::string> references[] = {
          {"vs_exact", reference_of(phase)},
          {"vs_fixed_block", "fixed blocks"},
          {"vs_nobias", "no positional bias"}};
      for (const auto& [vs, reference] : references)
        if (const auto d = gap_drift(summary, r, vs))
          out.push_back(drift_outcome(fmt::format("{} minus {},n={}", model, reference, n), *d));
    }
}

// The n-gram baselines at n, in one sentence: every order's validation loss,
// the highest order against exact ALiBi. None without baselines.
std::optional<std::string> ngram_finding(const CsvTable& summary, const std::string& n) {
  std::vector<std::string> orders;
  std::optional<LossRow> best;
  for (const auto& r : validation_losses(summary, n, "baseline")) {
    if (r.eval != "self") continue;
    orders.push_back(fmt::format("order {} {:.3f}", r.variant.substr(6), r.stats.value.mean));
    if (!best || std::stoi(r.variant.substr(6)) > std::stoi(best->variant.substr(6))) best = r;
  }
  if (!best) return std::nullopt;
  return fmt::format(
      "Byte n-gram baselines (interpolated Witten-Bell, fitted on the training bytes, scored on "
      "the same validation windows at n = {}, each byte from the window's bytes before it): {} "
      "bpb; the {}: {}.",
      n, fmt::join(orders, ", "), model_name(best->variant, ""), compared(*best));
}

// The context-use probe of the models trained from scratch, one sentence each:
// validation at n with attention cut to the last w positions, and the bits
// gained from beyond w (cut minus full, paired by batch).
std::vector<std::string> probe_findings(const CsvTable& summary, const std::string& n) {
  std::map<std::int64_t, bool> cuts;
  for (std::size_t r = 0; r < summary.size(); ++r)
    if (summary.text(r, "metric").rfind("val_bpb_ctx", 0) == 0)
      cuts[std::stoll(summary.text(r, "metric").substr(11))] = true;
  std::vector<std::string> out;
  for (const auto& r : validation_losses(summary, n)) {
    if (r.eval != "self" || cuts.empty()) continue;
    std::vector<std::string> parts;
    for (const auto& [w, _] : cuts) {
      const auto cut = model_value(summary, r.variant, r.train_s, "train", fmt::format("val_bpb_ctx{}", w));
      const auto beyond =
          model_value(summary, r.variant, r.train_s, "train", fmt::format("val_bpb_beyond{}", w));
      if (cut && beyond)
        parts.push_back(fmt::format("last {} {:.3f} ({:+.3f} from beyond)", w, *cut, *beyond));
    }
    if (!parts.empty())
      out.push_back(fmt::format("Context use of {} (validation at n = {}, attention cut to the last "
                                "w bytes): {}; full {:.3f} bpb.",
                                model_name(r.variant, r.train_s), n, fmt::join(parts, ", "),
                                r.stats.value.mean));
  }
  return out;
}

}  // namespace lm_checks

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
  lm_checks::add_loss_lines(summary, n, out);
  lm_checks::add_baseline_lines(summary, n, out);
  lm_checks::add_extrapolation_lines(summary, n, out);
  lm_checks::add_drift_lines(summary, n, out);
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
                  "n = {}. Expected blocks per context of one hash, (n - 1)/sigma + 1, by head: "
                  "{}. Verdicts: comparable only when the whole 95% interval of a paired "
                  "difference lies within the margin +-{} bpb, worse or better only when it lies "
                  "wholly outside.",
                  lm_checks::interval(exact->stats), n, lm_checks::expected_blocks_text(summary),
                  format_value(exact->margin)));
  if (const auto ngram = lm_checks::ngram_finding(summary, n)) out.push_back(*ngram);
  for (const auto& line : lm_checks::probe_findings(summary, n)) out.push_back(line);
  for (const auto& r : losses) {
    if (r.variant == "exact" && r.eval == "self") continue;
    out.push_back(fmt::format("{}: {}; {}.", lm_checks::describe(r), lm_checks::interval(r.stats),
                              lm_checks::compared(r)));
  }
  for (const std::string& phase : lm_checks::phases(summary)) {
    if (phase == "train") continue;
    for (const auto& r : lm_checks::validation_losses(summary, n, phase)) {
      if (r.eval != "self" || r.variant == "exact") continue;
      out.push_back(fmt::format("Fine-tuned from {} with {}: {}; {}.",
                                lm_checks::model_name(lm_checks::base_of(phase), ""),
                                lm_checks::model_name(r.variant, r.train_s),
                                lm_checks::interval(r.stats),
                                lm_checks::compared(r, lm_checks::reference_of(phase))));
    }
  }
  return out;
}

LmLossTable lm_loss_table(const CsvTable& summary) {
  std::vector<std::string> contexts;  // n, 2n, 4n
  for (std::size_t r = 0; r < summary.size(); ++r) {
    if (summary.text(r, "metric") != "val_bpb" || summary.text(r, "phase") != "train") continue;
    const std::string context = summary.text(r, "context");
    if (std::find(contexts.begin(), contexts.end(), context) == contexts.end())
      contexts.push_back(context);
  }
  std::sort(contexts.begin(), contexts.end(),
            [](const auto& a, const auto& b) { return std::stoll(a) < std::stoll(b); });
  const std::string n = lm_checks::training_context(summary);
  // The position buckets beyond n at the longest context.
  std::vector<std::pair<std::string, std::string>> buckets;
  for (std::size_t r = 0; r < summary.size() && !contexts.empty(); ++r)
    if (summary.text(r, "metric") == "val_bpb" && summary.text(r, "context") == contexts.back() &&
        !summary.text(r, "pos_lo").empty() && summary.text(r, "pos_lo") != "0") {
      const std::pair<std::string, std::string> b{summary.text(r, "pos_lo"),
                                                  summary.text(r, "pos_hi")};
      if (std::find(buckets.begin(), buckets.end(), b) == buckets.end()) buckets.push_back(b);
    }
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> cells;
  std::map<std::string, lm_checks::LossRow> at_n;
  const auto put = [&](const std::vector<lm_checks::LossRow>& rows, std::size_t column) {
    for (const auto& r : rows) {
      const std::string model = lm_checks::describe(r);
      if (!cells.count(model)) {
        order.push_back(model);
        cells[model].assign(contexts.size() + buckets.size(), "");
      }
      cells[model][column] = lm_checks::mean_and_interval(r.stats.value);
    }
  };
  for (std::size_t c = 0; c < contexts.size(); ++c)
    put(lm_checks::validation_losses(summary, contexts[c]), c);
  for (std::size_t c = 0; c < contexts.size(); ++c)  // the n-gram baselines, after the models
    put(lm_checks::validation_losses(summary, contexts[c], "baseline"), c);
  for (std::size_t b = 0; b < buckets.size(); ++b)
    put(lm_checks::validation_losses(summary, contexts.back(), "train", buckets[b].first,
                                     buckets[b].second),
        contexts.size() + b);
  for (const std::string phase : {"train", "baseline"})
    for (const auto& r : lm_checks::validation_losses(summary, n, phase))
      at_n[lm_checks::describe(r)] = r;
  LmLossTable t;
  t.header.push_back("model (validation bits/byte, 95% over seeds)");
  for (const auto& c : contexts) t.header.push_back("n = " + c);
  for (const auto& [lo, hi] : buckets)
    t.header.push_back(fmt::format("positions [{}, {}) at {}", lo, hi, contexts.back()));
  t.header.insert(t.header.end(),
                  {fmt::format("minus exact ALiBi at n = {} (paired by seed)", n),
                   "keys per query", "CPU ms per step"});
  for (const auto& model : order) {
    t.rows.push_back({model});
    auto& row = t.rows.back();
    row.insert(row.end(), cells[model].begin(), cells[model].end());
    const auto it = at_n.find(model);
    const bool own = it != at_n.end() && it->second.eval == "self";
    const bool diff = it != at_n.end() && it->second.stats.vs_exact &&
                      !(it->second.variant == "exact" && it->second.eval == "self");
    row.push_back(diff ? lm_checks::mean_and_interval(*it->second.stats.vs_exact, "+") : "");
    const auto keys = own ? lm_checks::model_value(summary, it->second.variant, it->second.train_s,
                                                   "train", "keys_per_query")
                          : std::nullopt;
    const auto step = own ? lm_checks::model_value(summary, it->second.variant, it->second.train_s,
                                                   "train", "train_bpb", "step_cpu_seconds")
                          : std::nullopt;
    row.push_back(keys ? fmt::format("{:.1f}", *keys) : "");
    row.push_back(step ? fmt::format("{:.1f}", 1000 * *step) : "");
  }
  return t;
}

namespace lm_checks {

// The variant of the highest-order n-gram baseline in a summary ("" : none).
std::string highest_ngram(const CsvTable& summary) {
  std::string best;
  for (std::size_t r = 0; r < summary.size(); ++r) {
    const std::string& v = summary.text(r, "variant");
    if (v.rfind("ngram-", 0) == 0 &&
        (best.empty() || std::stoi(v.substr(6)) > std::stoi(best.substr(6))))
      best = v;
  }
  return best;
}

std::string verdict_of(const std::optional<Interval>& d, double margin) {
  if (!d) return "";
  return d->low ? lm_margin_verdict(*d->low, *d->high, margin) : "undecided (one seed)";
}

// The fine-tune table's rows of one phase (one base model).
void add_finetune_rows(const CsvTable& summary, const std::string& n, const std::string& phase,
                       LmLossTable& t) {
  const auto rows = validation_losses(summary, n, phase);
  const std::string from =
      phase == "finetune" ? "" : fmt::format("from {}: ", model_name(base_of(phase), ""));
  for (const auto& r : rows) {
    if (r.eval != "self") continue;
    const auto before = find_loss(rows, r.variant, "swapin", r.train_s);
    const auto keys = model_value(summary, r.variant, r.train_s, phase, "keys_per_query");
    const bool control = r.variant == "exact";
    t.rows.push_back(
        {from + (control ? "exact ALiBi (the control)" : model_name(r.variant, r.train_s)),
         before ? mean_and_interval(before->stats.value) : "", mean_and_interval(r.stats.value),
         !control && r.stats.vs_exact ? mean_and_interval(*r.stats.vs_exact, "+") : "",
         control ? "" : verdict_of(r.stats.vs_exact, r.margin),
         !control && before && before->stats.vs_exact
             ? mean_and_interval(*before->stats.vs_exact, "+")
             : "",
         keys ? fmt::format("{:.1f}", *keys) : ""});
  }
}

}  // namespace lm_checks

LmLossTable lm_finetune_table(const CsvTable& summary) {
  const std::string n = lm_checks::training_context(summary);
  LmLossTable t;
  for (const std::string& phase : lm_checks::phases(summary))
    if (phase != "train") lm_checks::add_finetune_rows(summary, n, phase, t);
  if (t.rows.empty()) return t;
  t.header = {"fine-tuned from exact ALiBi (unless named) with",
              fmt::format("before (swap-in) at n = {}", n),
              "after",
              "after minus the exact control (paired by seed)",
              "verdict at the margin",
              "before minus the exact control",
              "keys per query"};
  return t;
}

namespace lm_checks {

std::vector<std::string> verdict_row(const std::string& claim, const std::string& comparison,
                                     const std::optional<Interval>& d, double margin,
                                     const std::optional<GapDrift>& drift = std::nullopt) {
  return {claim, comparison, d ? mean_and_interval(*d, "+") : "", verdict_of(d, margin),
          drift ? drift_text(*drift) : ""};
}

LmLossTable verdict_table(const CsvTable& summary) {
  LmLossTable t;
  const std::string n = training_context(summary);
  double margin = NAN;
  for (const std::string& phase : phases(summary))
    for (const auto& r : validation_losses(summary, n, phase)) {
      margin = r.margin;
      if (r.eval != "self" || r.variant == "exact") continue;
      const std::string claim = r.variant != "lsh" ? "baseline" : phase == "train" ? "1" : "3";
      t.rows.push_back(verdict_row(claim,
                                   fmt::format("{}{} minus {}", phase_prefix(phase),
                                               model_name(r.variant, r.train_s),
                                               reference_of(phase)),
                                   r.stats.vs_exact, r.margin,
                                   gap_drift(summary, r, "vs_exact")));
      if (r.vs_nobias)
        t.rows.push_back(verdict_row("2",
                                     fmt::format("{} minus no positional bias",
                                                 model_name(r.variant, r.train_s)),
                                     r.vs_nobias, r.margin, gap_drift(summary, r, "vs_nobias")));
      if (r.vs_fixed_block)
        t.rows.push_back(verdict_row("3",
                                     fmt::format("{}{} minus fixed blocks", phase_prefix(phase),
                                                 model_name(r.variant, r.train_s)),
                                     r.vs_fixed_block, r.margin,
                                     gap_drift(summary, r, "vs_fixed_block")));
    }
  for (const auto& r : validation_losses(summary, n, "baseline"))
    if (r.eval == "self" && r.stats.vs_exact && r.variant == highest_ngram(summary))
      t.rows.push_back(verdict_row(
          "baseline", fmt::format("{} minus exact ALiBi", model_name(r.variant, r.train_s)),
          r.stats.vs_exact, r.margin));
  for (const auto& r : extrapolation_losses(summary, n)) {
    if (r.eval != "self") continue;
    const std::string where = fmt::format("positions [{}, {}) at {}", r.pos_lo, r.pos_hi, r.context);
    if (r.variant == "lsh")
      t.rows.push_back(verdict_row(
          "4", fmt::format("{} minus exact ALiBi, {}", model_name(r.variant, r.train_s), where),
          r.stats.vs_exact, r.margin));
    if (extrapolation_yardstick(r.variant) && r.vs_n)
      t.rows.push_back(verdict_row(
          r.variant == "sinusoidal" ? "4 control" : "4",
          fmt::format("{}, {} minus its own loss at n, net of exact ALiBi's",
                      model_name(r.variant, r.train_s), where),
          r.vs_n, r.margin));
  }
  if (t.rows.empty()) return t;
  t.header = {"claim", fmt::format("comparison (validation, trained at n = {})", n),
              "paired difference, bits/byte (95% over seeds)",
              fmt::format("verdict at the margin +-{}", format_value(margin)),
              fmt::format("gap's move over the last 20% of training (settled: within +-{})",
                          format_value(margin / 2))};
  return t;
}

}  // namespace lm_checks

LmLossTable lm_verdict_table(const CsvTable& summary) { return lm_checks::verdict_table(summary); }

}  // namespace poslsh
