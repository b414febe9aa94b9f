// The theorem checks on convergence tables (see check_convergence_table in
// convergence.h for what each one asserts and why).
#include <fmt/format.h>
#include <poslsh/argument_error.h>
#include <poslsh/bounds.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "experiments/convergence/convergence.h"
#include "internal/printable.h"
#include "stats/binomial.h"
#include "stats/least_squares.h"
#include "experiments/checks/rate_interval.h"

namespace poslsh {

namespace convergence_checks {

constexpr double kMinRateS = 4;
// trials-distinct compares the error columns at s >= 2 only. Its bound (c^k
// for k values of s) rests on equal columns meaning equal masks; at s = 1 the
// mask is one hash's 0/1 partition and all three columns are functions of its
// largest block and the blocks around it (max_error = 1 - e^(-(b_max - 1) /
// sigma) once n is large against sigma), so two sound trials share them with
// the probability that their b_max agree, about 0.1, not c.
constexpr double kDistinctMinS = 2;
constexpr std::size_t kMinRateSValues = 4;
// A bound column is the recomputation printed by format_value (shortest
// round-trip form): it parses back to the identical double. 1e-9 leaves room
// for other printers (e.g. 12 significant digits) and nothing else.
constexpr double kBoundRelTolerance = 1e-9;


using Group = std::tuple<std::string, double, double>;  // form, n, sigma

std::string group_name(const Group& g) {
  return fmt::format("{}n={},sigma={}", std::get<0>(g).empty() ? "" : std::get<0>(g) + ",",
                     std::get<1>(g), std::get<2>(g));
}

// Row r, column c as a finite number >= 0.
double measured(const CsvTable& t, std::size_t r, const std::string& c) {
  const double v = t.number(r, c);
  if (!std::isfinite(v) || v < 0)
    unusable(fmt::format("row {}: {} is '{}'; expected a finite number >= 0", CsvTable::line_of(r),
                         c, detail::printable(t.text(r, c))));
  return v;
}

// Throws unless the table's bound column equals its recomputation.
void expect_recomputed(const CsvTable& t, std::size_t r, const std::string& c, double recomputed) {
  const double v = t.number(r, c);
  const double scale = std::max(std::abs(v), std::abs(recomputed));
  if (v == recomputed ||
      (std::isfinite(v) && std::abs(v - recomputed) <= kBoundRelTolerance * scale))
    return;
  unusable(
      fmt::format("row {}: {} {} disagrees with its recomputation {} from (n, sigma, s, p, "
                  "form): the table was edited or written by another version",
                  CsvTable::line_of(r), c, t.text(r, c), recomputed));
}

struct Row {
  std::size_t r;
  Group group;
  double s;
  double trial;
  double p;
  bool ok;
  // The solver's interval on the norm: lower is a Ritz value (a lower bound up
  // to rounding, on every row); upper is certified with probability >= 1 - q
  // (spectral_upper), or, for tables without that column, the estimate's
  // bracket spectral_error (1 + accuracy) on ok rows (NaN elsewhere).
  double spectral_lower, spectral_upper;
  double spectral_error;
  double max_error, b_max;
  double inf_error = std::numeric_limits<double>::quiet_NaN();  // NaN without the column
  double spectral_bound, max_bound, b_max_bound;
};

// The optional columns a table has.
struct Columns {
  bool form, p, bmax_bound, inf, upper, lower;
  explicit Columns(const CsvTable& t)
      : form(t.has_column("form")),
        p(t.has_column("p")),
        bmax_bound(t.has_column("b_max_bound")),
        inf(t.has_column("inf_error")),
        upper(t.has_column("spectral_upper")),
        lower(t.has_column("spectral_lower")) {}
};

// Row r's (n, sigma, s), checked once as it enters, and its p: an unusable
// row when either is out of range.
HashParameters row_hash_parameters(std::size_t r, std::int64_t n, double sigma, std::int64_t s,
                                   double p) {
  try {
    const HashParameters hash(n, sigma, s);
    check::open_unit("p", p);
    return hash;
  } catch (const ArgumentError& e) {
    unusable(fmt::format("row {}: {}", CsvTable::line_of(r), e.what()));
  }
}

// Row r's parameters (n, s, sigma, p, form), validated, and its recomputed
// bounds checked against the table's: a bound column is never trusted, the
// checks use the recomputed values.
void parse_parameters(const CsvTable& table, const Columns& has, std::size_t r, Row& x) {
  const std::int64_t n = table.integer(r, "n", 1, std::int64_t{1} << 50);
  const std::int64_t s = table.integer(r, "s", 1, std::int64_t{1} << 40);
  const double sigma = table.number(r, "sigma");
  const double p = has.p ? table.number(r, "p") : 0.01;
  std::string form_name = has.form ? table.text(r, "form") : "";
  Form form = Form::kSymmetric;
  if (form_name == "causal")
    form = Form::kCausal;
  else if (has.form && form_name != "symmetric")
    unusable(fmt::format("row {}: form is '{}'; expected symmetric or causal", CsvTable::line_of(r),
                         detail::printable(form_name)));
  const HashParameters hash = row_hash_parameters(r, n, sigma, s, p);
  x.p = p;
  x.group = {form_name, static_cast<double>(n), sigma};
  x.s = static_cast<double>(s);
  x.trial = table.number(r, "trial");
  x.spectral_bound = spectral_bound(hash, p, form);
  x.max_bound = max_bound(hash, p);
  x.b_max_bound = static_cast<double>(b_max_bound(hash, p));
}

void check_recomputed_bounds(const CsvTable& table, const Columns& has, const Row& x) {
  expect_recomputed(table, x.r, "spectral_bound", x.spectral_bound);
  expect_recomputed(table, x.r, "max_bound", x.max_bound);
  if (has.bmax_bound) expect_recomputed(table, x.r, "b_max_bound", x.b_max_bound);
}

// Row r's spectral interval [spectral_lower, spectral_upper], validated.
void parse_spectral(const CsvTable& table, const Columns& has, std::size_t r, Row& x) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  x.spectral_error = x.ok ? measured(table, r, "spectral_error") : kNaN;
  x.spectral_lower = has.lower ? measured(table, r, "spectral_lower") : x.spectral_error;
  if (has.upper) {
    x.spectral_upper = table.number(r, "spectral_upper");
    if (std::isnan(x.spectral_upper) || x.spectral_upper < x.spectral_lower)
      unusable(
          fmt::format("row {}: spectral_upper is '{}'; expected a number >= spectral_lower "
                      "(+inf when nothing is certified)",
                      CsvTable::line_of(r), detail::printable(table.text(r, "spectral_upper"))));
  } else {
    x.spectral_upper =
        x.ok ? x.spectral_error * (1 + measured(table, r, "spectral_accuracy")) : kNaN;
  }
  if (x.ok && !(x.spectral_lower <= x.spectral_error * (1 + 1e-12) &&
                x.spectral_error <= x.spectral_upper * (1 + 1e-12)))
    unusable(fmt::format(
        "row {}: spectral_error {} lies outside [spectral_lower, spectral_upper] = [{}, {}]",
        CsvTable::line_of(r), table.text(r, "spectral_error"),
        has.lower ? table.text(r, "spectral_lower") : "-",
        has.upper ? table.text(r, "spectral_upper") : "-"));
}

Row parse_row(const CsvTable& table, const Columns& has, std::size_t r) {
  Row x;
  x.r = r;
  parse_parameters(table, has, r, x);
  const std::string& status = table.text(r, "status");
  if (status != "ok" && status != "not_converged")
    unusable(fmt::format("row {}: status is '{}'; expected ok or not_converged",
                         CsvTable::line_of(r), detail::printable(status)));
  x.ok = status == "ok";
  x.max_error = measured(table, r, "max_error");
  if (has.inf) x.inf_error = measured(table, r, "inf_error");
  x.b_max = measured(table, r, "b_max");
  parse_spectral(table, has, r, x);
  check_recomputed_bounds(table, has, x);
  return x;
}

struct Cell {
  // spectral: rows whose lower end is above the bound (certain violations);
  // spectral_undecided: rows whose interval straddles the bound.
  std::int64_t trials = 0, spectral_trials = 0, spectral = 0, spectral_within = 0,
               spectral_undecided = 0, max = 0, b_max = 0;
};
// (form, n, sigma, s, p): a merged table may hold runs at several p.
using CellKey = std::tuple<std::string, double, double, double, double>;
// group -> trial -> s -> error
using Series = std::map<Group, std::map<double, std::map<double, double>>>;

// The table parsed once: its rows, the cells (form, n, sigma, s, p) and the
// rate groups (form, n, sigma) with their per-trial errors by s.
struct Parsed {
  Columns has;
  std::vector<Row> rows;
  std::int64_t not_converged = 0;
  std::map<CellKey, Cell> cells;
  Series spectral_series, max_series;
  // group -> trial -> s -> (max_error, inf_error, b_max) at s >= kDistinctMinS:
  // what two repeated trials share (spectral_error does not: the solver's
  // start vector is seeded by the trial).
  std::map<Group, TrialColumns> columns;
};

void add_to_cell(const Parsed& p, const Row& x, Cell& c) {
  ++c.trials;
  // A row is within the bound when its upper end is, a violation when its
  // lower end is above it, undecided in between; rows without an upper end
  // (not converged, older table) count only when their lower end decides.
  if (x.ok || p.has.lower) {
    ++c.spectral_trials;
    const bool above = x.spectral_lower > x.spectral_bound;
    c.spectral += above;
    const bool within = x.spectral_upper <= x.spectral_bound;
    c.spectral_within += within;
    c.spectral_undecided += !above && !within;
  }
  c.max += x.max_error > x.max_bound;
  c.b_max += x.b_max > x.b_max_bound;
}

Parsed parse_table(const CsvTable& table) {
  Parsed p{Columns(table), {}, 0, {}, {}, {}, {}};
  for (std::size_t r = 0; r < table.size(); ++r) {
    p.rows.push_back(parse_row(table, p.has, r));
    p.not_converged += !p.rows.back().ok;
  }
  for (const Row& x : p.rows) {
    Cell& c = p.cells[{std::get<0>(x.group), std::get<1>(x.group), std::get<2>(x.group), x.s, x.p}];
    if (p.max_series[x.group][x.trial].count(x.s))
      unusable(
          fmt::format("row {}: a second row for (form, n, sigma, s, trial) = ({}, s={}, "
                      "trial={}); expected one row per trial",
                      CsvTable::line_of(x.r), group_name(x.group), x.s, x.trial));
    add_to_cell(p, x, c);
    if (x.ok) p.spectral_series[x.group][x.trial][x.s] = x.spectral_error;
    p.max_series[x.group][x.trial][x.s] = x.max_error;
    auto& group_columns = p.columns[x.group];  // every group gets its line
    if (x.s >= kDistinctMinS) group_columns[x.trial][x.s] = {x.max_error, x.inf_error, x.b_max};
  }
  return p;
}

// The alpha split (Bonferroni, valid under any dependence between tests):
// half of alpha goes to the bound counts, spread evenly over the
// 3 x (number of cells) per-cell binomial tests; an eighth to the per-group
// rate tests, spread evenly over (groups x 2 error measures); a quarter to
// the pooled rate tests, spread evenly over (forms x 2 error measures); an
// eighth to the repeated-trials lines, one per group. Tests that end up n/a
// keep their share unspent, which only makes the family conservative.
struct Levels {
  double bound = 0, rate = 0, pooled = 0, distinct = 0;
  std::string family;
};

Levels split_alpha(const Parsed& p, double alpha) {
  Levels l;
  l.bound = alpha / 2 / (3.0 * static_cast<double>(p.cells.size()));
  l.rate = alpha / 8 / static_cast<double>(p.spectral_series.size() + p.max_series.size());
  l.distinct = alpha / 8 / static_cast<double>(std::max<std::size_t>(1, p.columns.size()));
  std::set<std::string> spectral_forms, max_forms;
  for (const auto& [g, t] : p.spectral_series) spectral_forms.insert(std::get<0>(g));
  for (const auto& [g, t] : p.max_series) max_forms.insert(std::get<0>(g));
  l.pooled =
      alpha / 4 /
      static_cast<double>(std::max<std::size_t>(1, spectral_forms.size() + max_forms.size()));
  l.family = fmt::format("family-wise false alarm of this table's checks <= {:.3g}", alpha);
  return l;
}

// 1. Bounds. Each bound holds with probability >= 1 - p for one row. Rows of
// one trial are not independent (they use prefixes of one hash sequence, and
// pitches of different sigma share random numbers), but the trials of one
// (form, n, sigma, s) cell are: so per cell the number of violating trials is
// at most Binomial(trials, p) in distribution.
//
// Slack factor = min over rows of bound / measured value (spectral: the
// upper end of the solver's bracket). The spectral bound (slack >= 5.2 on
// configs/default.toml) cannot plausibly be reached by a sound run: INFO
// with its slack, FAIL only as a guard, when a cell has more violations than
// the binomial allows. The max-norm (slack 1.36) and b_max (1.07) bounds
// are close enough to be real tests: PASS/FAIL.
struct BoundKind {
  std::string name;
  std::int64_t Cell::*violations;
  std::int64_t Cell::*trials;
  double Row::*value;
  double Row::*bound;
  bool info;
};

std::string bound_slack(const Parsed& p, const BoundKind& k) {
  double slack = std::numeric_limits<double>::infinity();
  std::size_t slack_row = 0;
  for (const Row& x : p.rows) {
    const double v = x.*k.value;
    if (!std::isfinite(v) || v <= 0) continue;
    if (x.*k.bound / v < slack) {
      slack = x.*k.bound / v;
      slack_row = CsvTable::line_of(x.r);
    }
  }
  return std::isinf(slack)
             ? std::string("no row with a positive value")
             : fmt::format("smallest slack bound/value {:.3g} (row {})", slack, slack_row);
}

CheckOutcome bound_line(const Parsed& p, const Levels& l, const BoundKind& k) {
  std::int64_t total = 0, failing_cells = 0, total_trials = 0;
  for (const auto& [key, c] : p.cells) {
    total += c.*k.violations;
    total_trials += c.*k.trials;
    failing_cells += c.*k.violations > stats::binomial_upper_critical(c.*k.trials, std::get<4>(key), l.bound);
  }
  const Verdict verdict =
      failing_cells > 0 ? Verdict::kFail : (k.info ? Verdict::kInfo : Verdict::kPass);
  return {"bound " + k.name, verdict,
          fmt::format("{}{}; {} of {} rows above the recomputed bound; {} of {} (n, sigma, s) "
                      "cells have more violating trials than Binomial(trials, p) allows at "
                      "{:.2g} per cell ({})",
                      k.info ? "not a test (too loose to fail on a sound sampler; FAIL only as a "
                               "guard): "
                             : "",
                      bound_slack(p, k), total, total_trials, failing_cells, p.cells.size(),
                      l.bound, l.family)};
}

// Undecided rows: the certified interval straddles the bound. If counting
// them as violations could change a cell's verdict, say so.
CheckOutcome spectral_interval_line(const Parsed& p, const Levels& l) {
  std::int64_t undecided = 0, could_fail = 0, within = 0;
  for (const auto& [key, c] : p.cells) {
    undecided += c.spectral_undecided;
    within += c.spectral_within;
    could_fail += c.spectral + c.spectral_undecided >
                  stats::binomial_upper_critical(c.spectral_trials, std::get<4>(key), l.bound);
  }
  return {"spectral interval", could_fail > 0 ? Verdict::kInfo : Verdict::kNotApplicable,
          fmt::format(
              "{} rows within the bound by spectral_upper{}, {} undecided (interval "
              "[spectral_lower, spectral_upper] straddles the bound){}",
              within,
              p.has.upper ? fmt::format(" (certified, failure probability per row as "
                                        "written by the solver)")
                          : std::string(" (no spectral_upper column: an older table; the upper "
                                        "end is the estimate's bracket spectral_error (1 + "
                                        "spectral_accuracy), not a certificate)"),
              undecided,
              could_fail > 0 ? fmt::format("; {} cells could fail if they were violations: rerun "
                                           "with a smaller --upper-width",
                                           could_fail)
                             : "")};
}

void bound_lines(const Parsed& p, const Levels& l, std::vector<CheckOutcome>& out) {
  out.push_back(bound_line(p, l,
                           {"spectral", &Cell::spectral, &Cell::spectral_trials,
                            &Row::spectral_upper, &Row::spectral_bound, true}));
  out.push_back(spectral_interval_line(p, l));
  out.push_back(bound_line(
      p, l, {"max", &Cell::max, &Cell::trials, &Row::max_error, &Row::max_bound, false}));
  out.push_back(bound_line(
      p, l, {"b_max", &Cell::b_max, &Cell::trials, &Row::b_max, &Row::b_max_bound, false}));
  out.push_back({"spectral solves", Verdict::kNotApplicable,
                 fmt::format("{} of {} rows not converged (left out of spectral checks)",
                             p.not_converged, p.rows.size())});
}

// 2. Rate: per group and trial, the least-squares slope of log(error) vs
// log s over s >= kMinRateS; the exact sign test of rate_interval.h at
// rate_level; and per form, the same on the trials' slopes averaged over
// groups, at pooled_level.
std::string rate_text(const RateInterval& ri, const std::string& what, const Levels& l) {
  return fmt::format(
             "{} of log error vs log s (s >= {}) over {} independent trials: {}; FAIL "
             "only if a tail is <= {:.2g} (the interval lies outside [{}, {}]; {})",
             what, kMinRateS, ri.trials, rate_numbers(ri), ri.level / 2, kRateSlopeLow,
             kRateSlopeHigh, l.family) +
         rate_untestable_note(ri);
}

// One group's trial slopes over s >= kMinRateS, with the trials they come from.
struct GroupSlopes {
  std::vector<double> slopes, trials;
  std::set<double> s_values;
  std::size_t zero_trials = 0;
};

GroupSlopes group_slopes(const std::map<double, std::map<double, double>>& trials) {
  GroupSlopes out;
  for (const auto& [trial, by_s] : trials) {
    std::vector<double> x, y;
    bool zero = false;
    for (const auto& [s, e] : by_s) {
      if (s < kMinRateS) continue;
      if (e <= 0) zero = true;
      x.push_back(std::log(s));
      y.push_back(std::log(e));
      out.s_values.insert(s);
    }
    if (zero) {
      ++out.zero_trials;
      continue;
    }
    if (x.size() >= kMinRateSValues) {
      out.slopes.push_back(stats::least_squares_slope(x, y));
      out.trials.push_back(trial);
    }
  }
  return out;
}

// What a rate line without enough trials needs: values of s first, then trials.
std::string rate_s_remedy(std::size_t s_values, double level) {
  const std::size_t trials = rate_trials_needed(level);
  if (s_values >= kMinRateSValues) return fmt::format("use --trials >= {}", trials);
  const auto largest = static_cast<long>(kMinRateS) << (kMinRateSValues - 1);
  return fmt::format("use >= {} values of s >= {} (e.g. --s 1:{}:x2) and --trials >= {}",
                     kMinRateSValues, kMinRateS, largest, trials);
}

CheckOutcome group_rate_line(const std::string& name, const GroupSlopes& gs, const Levels& l) {
  if (gs.slopes.size() < kMinRateTrials)
    return {name, Verdict::kNotApplicable,
            fmt::format("{} trials with >= {} values of s >= {} and no zero error (needs {}); "
                        "{} values of s >= {} in the group; {} trials with a zero error",
                        gs.slopes.size(), kMinRateSValues, kMinRateS, kMinRateTrials,
                        gs.s_values.size(), kMinRateS, gs.zero_trials),
            rate_s_remedy(gs.s_values.size(), l.rate)};
  const RateInterval ri = rate_interval(gs.slopes, l.rate);
  return {name, rate_verdict(ri), rate_text(ri, "per-trial slope", l), rate_remedy(ri)};
}

// form -> trial -> slopes of that trial in the form's tested groups, and the
// number of tested groups per form.
struct FormSlopes {
  std::map<std::string, std::map<double, std::vector<double>>> by_trial;
  std::map<std::string, std::size_t> tested_groups;
};

// Pooled: per trial, the mean of its slopes over the form's tested (n,
// sigma) groups. Rows of one trial share hashes across n and sigma (pitches
// of another sigma are the same draws scaled), so the slopes of one trial are
// strongly dependent and the trial, not the (group, trial) slope, is the
// independent unit: a sign test counting every group's slope as independent
// would reject a sound sampler whenever a few trials run steep. The test is
// the exact sign test on the trial means (null: their median is in the band).
std::optional<CheckOutcome> pooled_rate_line(const std::string& form,
                                             const std::map<double, std::vector<double>>& trials,
                                             std::size_t groups, const std::string& what,
                                             const Levels& l) {
  if (groups < 2) return std::nullopt;
  std::vector<double> means;
  for (const auto& [trial, slopes] : trials) {
    if (slopes.size() != groups) continue;
    double m = 0;
    for (double b : slopes) m += b / static_cast<double>(groups);
    means.push_back(m);
  }
  const std::string name = fmt::format("rate[{}pooled over {} (n, sigma) groups] {}",
                                       form.empty() ? "" : form + ",", groups, what);
  if (means.size() < kMinRateTrials)
    return CheckOutcome{name, Verdict::kNotApplicable,
                        fmt::format("{} trials with a slope in every group (needs {})",
                                    means.size(), kMinRateTrials),
                        fmt::format("use --trials >= {}", rate_trials_needed(l.pooled))};
  const RateInterval ri = rate_interval(means, l.pooled);
  return CheckOutcome{name, rate_verdict(ri),
                      rate_text(ri, "per-trial mean over groups of the slope", l), rate_remedy(ri)};
}

void rate_lines(const std::string& what, const Series& series, const Levels& l,
                std::vector<CheckOutcome>& out) {
  FormSlopes forms;
  for (const auto& [g, trials] : series) {
    const GroupSlopes gs = group_slopes(trials);
    out.push_back(group_rate_line(fmt::format("rate[{}] {}", group_name(g), what), gs, l));
    if (gs.slopes.size() < kMinRateTrials) continue;
    ++forms.tested_groups[std::get<0>(g)];
    for (std::size_t i = 0; i < gs.slopes.size(); ++i)
      forms.by_trial[std::get<0>(g)][gs.trials[i]].push_back(gs.slopes[i]);
  }
  for (const auto& [form, trials] : forms.by_trial)
    if (auto line = pooled_rate_line(form, trials, forms.tested_groups[form], what, l))
      out.push_back(*line);
}

// 2b. Trials that repeat: identical (max_error, inf_error, b_max) at
// every s in two trials of a group (rate_interval.h, find_repeated_trials).
void distinct_lines(const Parsed& p, const Levels& l, std::vector<CheckOutcome>& out) {
  for (const auto& [g, columns] : p.columns) {
    const RepeatedTrials r =
        find_repeated_trials(columns, std::get<1>(g), std::get<2>(g), l.distinct);
    const Verdict v = !r.decidable  ? Verdict::kNotApplicable
                      : r.identical ? Verdict::kFail
                                    : Verdict::kPass;
    out.push_back({fmt::format("trials-distinct[{}]", group_name(g)), v,
                   r.detail() + fmt::format(" (s >= {} only: at s = 1 the columns are functions "
                                            "of the block sizes, not of the mask; {})",
                                            kDistinctMinS, l.family)});
  }
}

// 3. Constant: mean spectral_error sqrt(s) / sigma across s >= 4. The rate
// test already tests the s-dependence; this is reported, not tested.
// Returns the group's mean constant (NaN when it has fewer than two s).
double constant_line(const Group& g, const std::map<double, std::map<double, double>>& trials,
                     std::vector<CheckOutcome>& out) {
  std::map<double, std::pair<double, int>> by_s;
  for (const auto& [trial, errors] : trials)
    for (const auto& [s, e] : errors) {
      by_s[s].first += e;
      by_s[s].second += 1;
    }
  std::vector<double> c;
  for (const auto& [s, e] : by_s)
    if (s >= kMinRateS) c.push_back(e.first / e.second * std::sqrt(s) / std::get<2>(g));
  const std::string name = fmt::format("constant[{}]", group_name(g));
  if (c.size() < 2) {
    out.push_back({name, Verdict::kNotApplicable,
                   fmt::format("{} values of s >= {} (needs 2)", c.size(), kMinRateS)});
    return NAN;
  }
  const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
  out.push_back({name, Verdict::kInfo,
                 fmt::format("not a test (the rate test covers it): mean error sqrt(s)/sigma over "
                             "s >= {} in [{:.4g}, {:.4g}], ratio {:.3f}",
                             kMinRateS, *lo, *hi, *hi / *lo)});
  double mean = 0;
  for (double v : c) mean += v / static_cast<double>(c.size());
  return mean;
}

void constant_lines(const Series& spectral_series, std::vector<CheckOutcome>& out) {
  std::map<std::pair<std::string, double>, std::vector<std::pair<double, double>>> across_n;
  for (const auto& [g, trials] : spectral_series) {
    const double mean = constant_line(g, trials, out);
    if (!std::isnan(mean))
      across_n[{std::get<0>(g), std::get<2>(g)}].push_back({std::get<1>(g), mean});
  }
  for (const auto& [key, points] : across_n) {
    const std::string name = fmt::format("constant growth in ln n[{}sigma={}]",
                                         key.first.empty() ? "" : key.first + ",", key.second);
    if (points.size() < 2) continue;
    std::vector<double> x, y;
    for (const auto& [n, c] : points) {
      if (n < 3) continue;
      x.push_back(std::log(std::log(n)));
      y.push_back(std::log(c));
    }
    out.push_back({name, Verdict::kInfo,
                   fmt::format("fitted exponent of mean error sqrt(s)/sigma in ln n: {:.3f} "
                               "over {} values of n (theory allows up to 0.5)",
                               stats::least_squares_slope(x, y), x.size())});
  }
}

}  // namespace convergence_checks

std::vector<CheckOutcome> check_convergence_table(const CsvTable& table, double alpha) {
  using namespace convergence_checks;
  if (!(alpha > 0 && alpha < 1))
    throw std::logic_error(fmt::format("check alpha {} is not in (0, 1)", alpha));
  if (table.size() == 0) return {{"rows", Verdict::kFail, "the table has no rows"}};
  const Parsed p = parse_table(table);
  const Levels levels = split_alpha(p, alpha);
  std::vector<CheckOutcome> out;
  bound_lines(p, levels, out);
  rate_lines("spectral", p.spectral_series, levels, out);
  rate_lines("max", p.max_series, levels, out);
  distinct_lines(p, levels, out);
  constant_lines(p.spectral_series, out);
  return out;
}

}  // namespace poslsh
