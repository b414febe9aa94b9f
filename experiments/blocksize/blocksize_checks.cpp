// Statistics, summary table and `poslsh check` for blocksize tables.
#include <fmt/format.h>
#include <poslsh/block_size_law.h>
#include <poslsh/bounds.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "experiments/blocksize/blocksize_fit.h"
#include "experiments/blocksize/blocksize.h"
#include "internal/printable.h"
#include "stats/binomial.h"
#include "stats/chernoff.h"
#include "stats/least_squares.h"
#include "runner/cli_common.h"
#include "runner/csv_writer.h"

namespace poslsh {

namespace blocksize_checks {

// Finite positive field.
double positive_field(const CsvTable& t, std::size_t row, const std::string& col) {
  const double v = t.number(row, col);
  if (!std::isfinite(v) || !(v > 0))
    throw InputError(fmt::format("row {}, column {}: expected a finite number > 0, got '{}'",
                                 CsvTable::line_of(row), col, detail::printable(t.text(row, col))));
  return v;
}

// Smallest b with empirical CDF >= q (the same convention as quantile(law, q)).
std::int64_t empirical_quantile(const std::vector<std::int64_t>& sorted, double q) {
  const auto need = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::max<std::size_t>(need, 1) - 1];
}

std::string cell_name(const BlocksizeCellStats& c) {
  return c.s_log_c > 0 ? fmt::format("n={},sigma={},s={}(c={})", c.n_text, c.sigma_text, c.s_text,
                                     c.s_log_c_text)
                       : fmt::format("n={},sigma={},s={}", c.n_text, c.sigma_text, c.s_text);
}


// The law of b_max as a table of log pmf over b = 1..last (the mass beyond
// `last` is below 1e-40), with its mean and variance, and Chernoff bounds on
// the mean of T independent draws.
class LawMoments {
 public:
  explicit LawMoments(const BlockSizeLaw& law) : sigma_(law.sigma()) {
    double total = 0;
    for (std::int64_t b = 1; b <= law.n(); ++b) {
      const double m = pmf(law, b);
      law_.value.push_back(static_cast<double>(b));
      law_.prob.push_back(m);
      total += m;
      mean_ += m * static_cast<double>(b);
      if (b >= law.n() || (m < 0.5 && survival(law, b) < 1e-40)) break;
    }
    mean_ /= total;
    for (std::size_t i = 0; i < law_.value.size(); ++i) {
      const double d = law_.value[i] - mean_;
      variance_ += law_.prob[i] * d * d;
    }
    variance_ /= total;
  }
  double mean() const { return mean_; }
  double sd() const { return std::sqrt(variance_); }

  // Upper bound on P(mean of T draws >= m) for m >= mean, or on
  // P(mean of T draws <= m) for m <= mean, theta over [0, 0.5/sigma] or
  // [-50/sd, 0]: the law is cut where its tail is below 1e-40, so theta stays
  // where that cut cannot matter.
  double chernoff_tail(double m, std::int64_t trials) const {
    const bool upper = m >= mean_;
    const double lo = upper ? 0.0 : -50.0 / std::max(sd(), 1e-3);
    const double hi = upper ? 0.5 / sigma_ : 0.0;
    return stats::chernoff_mean_tail(law_, m, static_cast<double>(trials), lo, hi);
  }

 private:
  double sigma_;
  stats::FiniteLaw law_;  // b = 1..last and its pmf
  double mean_ = 0, variance_ = 0;
};

// A new cell from its first row r: parameters parsed and validated.
BlocksizeCellStats new_cell(const CsvTable& table, std::size_t r) {
  constexpr std::int64_t kMaxN = std::int64_t{1} << 50;
  BlocksizeCellStats c;
  c.n_text = table.text(r, "n");
  c.sigma_text = table.text(r, "sigma");
  c.s_text = table.text(r, "s");
  c.s_log_c_text = table.text(r, "s_log_c");
  c.n = table.integer(r, "n", 1, kMaxN);
  c.sigma = positive_field(table, r, "sigma");
  c.s = table.integer(r, "s", 1, std::numeric_limits<std::int32_t>::max());
  c.s_log_c = c.s_log_c_text.empty() ? 0.0 : positive_field(table, r, "s_log_c");
  if (c.s_log_c > 0) {
    // In floating point first: a huge c (e.g. 1e308) gives a count no
    // integer holds, which can only disagree with s.
    const double want = std::max(1.0, std::ceil(c.s_log_c * std::log(static_cast<double>(c.n))));
    if (!(want <= static_cast<double>(std::numeric_limits<std::int32_t>::max())) ||
        c.s != static_cast<std::int64_t>(want))
      throw InputError(fmt::format(
          "row {}, column s: s = {} but s_log_c = {} needs s = max(1, ceil(c ln n)) = {:.17g} "
          "at n = {}",
          CsvTable::line_of(r), c.s, detail::printable(c.s_log_c_text), want, c.n));
  }
  c.p = table.number(r, "p");
  if (!(c.p > 0 && c.p < 1))
    throw InputError(fmt::format("row {}, column p: expected a number in (0, 1), got '{}'",
                                 CsvTable::line_of(r), detail::printable(table.text(r, "p"))));
  return c;
}

// The cells in table order while their rows are read.
struct CellBuilder {
  std::vector<BlocksizeCellStats> cells;
  std::map<std::string, std::size_t> index;
  std::vector<double> pitch_sum;
  std::vector<std::set<std::int64_t>> trials_seen;
  std::map<std::string, std::int64_t> bound_cache;  // n|sigma|s|s_log_c|p -> b_max_bound
};

std::size_t cell_of_row(const CsvTable& table, std::size_t r, const std::string& key,
                        CellBuilder& b) {
  auto it = b.index.find(key);
  if (it != b.index.end()) return it->second;
  b.cells.push_back(new_cell(table, r));
  b.pitch_sum.push_back(0);
  b.trials_seen.emplace_back();
  return b.index.emplace(key, b.cells.size() - 1).first->second;
}

// Row r's b_max_bound against its recomputation (cached per parameter set).
std::int64_t checked_bound(const CsvTable& table, std::size_t r, const std::string& key,
                           const BlocksizeCellStats& c, CellBuilder& b) {
  const std::int64_t bound = table.integer(r, "b_max_bound", 1, c.n);
  const std::string bound_key = key + "|" + table.text(r, "p");
  auto bit = b.bound_cache.find(bound_key);
  if (bit == b.bound_cache.end())
    bit = b.bound_cache.emplace(bound_key, b_max_bound(c.n, c.sigma, c.s, c.p)).first;
  if (bound != bit->second)
    throw InputError(fmt::format(
        "row {}: b_max_bound {} disagrees with its recomputation {} from (n, sigma, s, p) = "
        "({}, {}, {}, {})",
        CsvTable::line_of(r), bound, bit->second, c.n_text, c.sigma_text, c.s_text,
        table.text(r, "p")));
  return bound;
}

void add_row(const CsvTable& table, std::size_t r, CellBuilder& b) {
  const std::string key = table.text(r, "n") + "|" + table.text(r, "sigma") + "|" +
                          table.text(r, "s") + "|" + table.text(r, "s_log_c");
  const std::size_t i = cell_of_row(table, r, key, b);
  BlocksizeCellStats& c = b.cells[i];
  if (table.number(r, "p") != c.p)
    throw InputError(
        fmt::format("row {}, column p: {} differs from p = {} of the earlier rows of cell {}",
                    CsvTable::line_of(r), table.text(r, "p"), format_value(c.p), cell_name(c)));
  const std::int64_t trial = table.integer(r, "trial", 0, std::int64_t{1} << 62);
  if (!b.trials_seen[i].insert(trial).second)
    throw InputError(fmt::format(
        "row {}, column trial: trial {} repeats in cell {}; expected independent trials, "
        "each once",
        CsvTable::line_of(r), trial, cell_name(c)));
  const std::int64_t b_max = table.integer(r, "b_max", 1, c.n);
  const std::int64_t bound = checked_bound(table, r, key, c, b);
  c.b_max_bound = bound;
  c.b_max.push_back(b_max);
  if (b_max > bound) ++c.exceed_bound;
  b.pitch_sum[i] += positive_field(table, r, "max_pitch");
}

// A cell's summary statistics and the law's predictions, once all its rows are in.
void summarize(BlocksizeCellStats& c, double pitch_sum) {
  c.trials = static_cast<std::int64_t>(c.b_max.size());
  std::vector<std::int64_t> sorted = c.b_max;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (const auto b : sorted) sum += static_cast<double>(b);
  c.mean_b_max = sum / static_cast<double>(c.trials);
  c.mean_max_pitch = pitch_sum / static_cast<double>(c.trials);
  c.median_b_max = empirical_quantile(sorted, 0.5);
  c.q10_b_max = empirical_quantile(sorted, 0.1);
  c.q90_b_max = empirical_quantile(sorted, 0.9);
  c.max_b_max = sorted.back();
  const BlockSizeLaw law(c.n, c.sigma, c.s);  // the cell's one check of (n, sigma, s)
  c.law_mean_b_max = mean(law);
  c.law_median_b_max = median(law);
  c.law_mean_max_pitch = expected_max_pitch(c.sigma, c.s).value;
  c.law_applies = law_applies(law.parameters(), c.trials);
  const BlockSizeFit fit = block_size_fit(c.b_max, law);
  c.gof_statistic = fit.test.statistic;
  c.gof_dof = fit.test.dof;
  // The verdict's p-value: exact binomial tails of the CDF at the cut points
  // (block_size_law.h); the chi-square statistic is reported only.
  c.gof_p_value = fit.cdf_p_value;
  const double lnln = std::log(std::log(static_cast<double>(c.n)));
  c.ratio_sigma_lnln_n =
      lnln > 0 ? c.mean_b_max / (c.sigma * lnln) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace blocksize_checks

std::vector<BlocksizeCellStats> blocksize_cell_stats(const CsvTable& table) {
  blocksize_checks::CellBuilder b;
  for (std::size_t r = 0; r < table.size(); ++r) blocksize_checks::add_row(table, r, b);
  for (std::size_t i = 0; i < b.cells.size(); ++i)
    blocksize_checks::summarize(b.cells[i], b.pitch_sum[i]);
  return std::move(b.cells);
}

std::string blocksize_summary_csv(const std::vector<BlocksizeCellStats>& cells) {
  std::string text = csv_line({"n",
                               "sigma",
                               "s",
                               "s_log_c",
                               "trials",
                               "mean_b_max",
                               "law_mean_b_max",
                               "median_b_max",
                               "law_median_b_max",
                               "q10_b_max",
                               "q90_b_max",
                               "max_b_max",
                               "mean_max_pitch",
                               "law_mean_max_pitch",
                               "b_max_bound",
                               "exceed_bound",
                               "law_applies",
                               "gof_statistic",
                               "gof_dof",
                               "gof_p_value",
                               "mean_b_max_over_sigma_lnln_n"});
  for (const auto& c : cells) {
    text += csv_line({c.n_text,
                      c.sigma_text,
                      c.s_text,
                      c.s_log_c_text,
                      std::to_string(c.trials),
                      format_value(c.mean_b_max),
                      format_value(c.law_mean_b_max),
                      std::to_string(c.median_b_max),
                      std::to_string(c.law_median_b_max),
                      std::to_string(c.q10_b_max),
                      std::to_string(c.q90_b_max),
                      std::to_string(c.max_b_max),
                      format_value(c.mean_max_pitch),
                      format_value(c.law_mean_max_pitch),
                      std::to_string(c.b_max_bound),
                      std::to_string(c.exceed_bound),
                      c.law_applies ? "1" : "0",
                      format_value(c.gof_statistic),
                      std::to_string(c.gof_dof),
                      format_value(c.gof_p_value),
                      format_value(c.ratio_sigma_lnln_n)});
  }
  return text;
}

namespace blocksize_checks {

bool fit_testable(const BlocksizeCellStats& c) {
  return c.law_applies && c.trials >= kBlocksizeMinFitTrials && c.gof_dof >= 1;
}

// One n of a growth group: the measured mean against the law's.
struct GrowthPoint {
  const BlocksizeCellStats* cell;
  double law_mean = 0, law_sd = 0, z = 0, tail = 1;  // tail: Chernoff bound on the observed side
  std::int64_t deviation_slack = 0;                  // lower side: trials allowed one below the law
  bool fails = false;
};

// The cells grouped once: growth groups (sigma, c) with s = ceil(c ln n), in
// table order, and the Bonferroni shares of alpha.
struct Families {
  std::map<std::pair<std::string, std::string>, std::vector<const BlocksizeCellStats*>> groups;
  std::vector<std::pair<std::string, std::string>> order;
  std::size_t growth_tests = 0, fit_cells = 0;
  double share = 0;
  std::string share_text;
};

// Bonferroni: equal shares of alpha for the families that test anything.
Families families_of(const std::vector<BlocksizeCellStats>& cells, double alpha) {
  Families f;
  for (const auto& c : cells) {
    if (c.s_log_c <= 0) continue;
    const auto key = std::pair{c.sigma_text, c.s_log_c_text};
    if (!f.groups.contains(key)) f.order.push_back(key);
    f.groups[key].push_back(&c);
  }
  for (const auto& key : f.order) {
    std::size_t applies = 0;
    for (const auto* c : f.groups[key]) applies += c->law_applies ? 1 : 0;
    if (applies >= 2) f.growth_tests += applies;
  }
  for (const auto& c : cells) f.fit_cells += fit_testable(c) ? 1 : 0;
  const std::size_t families = 1 + (f.fit_cells > 0 ? 1 : 0) + (f.growth_tests > 0 ? 1 : 0);
  f.share = alpha / static_cast<double>(families);
  f.share_text = fmt::format("family-wise false alarm <= {:.3g} = alpha {:.3g} / {} check families",
                             f.share, alpha, families);
  return f;
}

// 1. The union bound, per cell (independent trials), Bonferroni over cells.
void bound_lines(const std::vector<BlocksizeCellStats>& cells, const Families& f,
                 std::vector<CheckOutcome>& out) {
  const double level = f.share / static_cast<double>(cells.size());
  std::int64_t total_exceed = 0, total_rows = 0, failing = 0;
  double worst_excess = -1;
  std::string worst;
  for (const auto& c : cells) {
    const std::int64_t limit = stats::binomial_upper_critical(c.trials, c.p, level);
    total_exceed += c.exceed_bound;
    total_rows += c.trials;
    const double excess = static_cast<double>(c.exceed_bound) / static_cast<double>(limit + 1);
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = fmt::format("{}: {} of {} above {} (allowed {})", cell_name(c), c.exceed_bound,
                          c.trials, c.b_max_bound, limit);
    }
    if (c.exceed_bound > limit) {
      ++failing;
      out.push_back({fmt::format("bound[{}]", cell_name(c)), Verdict::kFail,
                     fmt::format("b_max > b_max_bound = {} in {} of {} trials; Binomial({}, "
                                 "p={}) exceeds {} with probability <= {:.3g}",
                                 c.b_max_bound, c.exceed_bound, c.trials, c.trials,
                                 format_value(c.p), limit, level)});
    }
  }
  out.push_back(
      {"bound", failing ? Verdict::kFail : Verdict::kPass,
       fmt::format("{} of {} rows above b_max_bound (recomputed from (n, sigma, s, p) "
                   "on every row); {} of {} cells beyond their Binomial(trials, p) "
                   "limit at {:.3g} per cell ({}); closest: {}",
                   total_exceed, total_rows, failing, cells.size(), level, f.share_text, worst)});
}

// 2. Goodness of fit to F(b)^s where the law holds.
CheckOutcome law_line(const BlocksizeCellStats& c, const Families& f) {
  const double threshold = f.share / static_cast<double>(std::max<std::size_t>(f.fit_cells, 1));
  const std::string name = fmt::format("law[{}]", cell_name(c));
  if (c.trials < kBlocksizeMinFitTrials)
    return {name, Verdict::kNotApplicable,
            fmt::format("{} trials < {}", c.trials, kBlocksizeMinFitTrials),
            fmt::format("use --trials >= {}", kBlocksizeMinFitTrials)};
  if (!c.law_applies)
    return {name, Verdict::kNotApplicable,
            fmt::format("n too small for F(b)^s: trials x E[max pitch]/(2n) = {:.3g} "
                        "> 0.5 expected deviating trials",
                        static_cast<double>(c.trials) * law_deviation_rate(c.n, c.sigma, c.s))};
  if (c.gof_dof < 1) return {name, Verdict::kNotApplicable, "a single cell of expected count >= 5"};
  return {name, c.gof_p_value >= threshold ? Verdict::kPass : Verdict::kFail,
          fmt::format("empirical CDF at {} cut points vs F(b)^s, exact binomial tails "
                      "(Bonferroni over the cuts): p = {:.3g} (need >= {:.2g} = {:.3g} / {} "
                      "cells; {}); chi2 = {:.2f} (reported, not tested); median {} vs "
                      "law {}, mean {:.3f} vs law {:.3f}",
                      c.gof_dof, c.gof_p_value, threshold, f.share, f.fit_cells, f.share_text,
                      c.gof_statistic, c.median_b_max, c.law_median_b_max, c.mean_b_max,
                      c.law_mean_b_max)};
}

// One n of a growth group against the exact law at `level`: the Chernoff
// tail on the side the measured mean lies.
void test_growth_point(GrowthPoint& g, double level) {
  const BlocksizeCellStats& c = *g.cell;
  const LawMoments law(BlockSizeLaw(c.n, c.sigma, c.s));
  g.law_mean = law.mean();
  g.law_sd = law.sd();
  const double se = g.law_sd / std::sqrt(static_cast<double>(c.trials));
  g.z = se > 0 ? (c.mean_b_max - g.law_mean) / se : 0.0;
  if (c.mean_b_max >= g.law_mean) {
    g.tail = law.chernoff_tail(c.mean_b_max, c.trials);
    g.fails = g.tail <= level / 2;
    return;
  }
  // Trials that deviate from the law sit one below it: allow for up to
  // the Binomial(trials, rate) quantile at level / 4 of them.
  g.deviation_slack =
      stats::binomial_upper_critical(c.trials, law_deviation_rate(c.n, c.sigma, c.s), level / 4);
  const double m = std::min(g.law_mean, c.mean_b_max + static_cast<double>(g.deviation_slack) /
                                                           static_cast<double>(c.trials));
  g.tail = law.chernoff_tail(m, c.trials);
  g.fails = g.tail <= level / 4;
}

std::string describe_point(const GrowthPoint& g) {
  return fmt::format("n={}: mean {:.3f} vs law {:.3f} (z = {:.2f}, Chernoff tail {})",
                     g.cell->n_text, g.cell->mean_b_max, g.law_mean, g.z,
                     g.tail < 1e-300 ? std::string("< 1e-300") : fmt::format("<= {:.2g}", g.tail));
}

// 3. Growth under s = ceil(c ln n): the mean b_max at every n against the
// exact law's E[b_max], which grows like sigma (ln ln n + ln c + ...).
CheckOutcome growth_line(const std::string& name, std::vector<GrowthPoint>& points,
                         std::size_t without_law, const Families& f) {
  const double level = f.share / static_cast<double>(std::max<std::size_t>(f.growth_tests, 1));
  std::size_t failing = 0, listed = 0;
  const GrowthPoint* worst = nullptr;
  std::string failures;
  for (auto& g : points) {
    test_growth_point(g, level);
    failing += g.fails ? 1 : 0;
    if (!worst || std::abs(g.z) > std::abs(worst->z)) worst = &g;
    if (g.fails && listed < 4) failures += (listed++ ? "; " : "") + describe_point(g);
  }
  if (failing > listed) failures += fmt::format("; and {} more", failing - listed);
  const std::string level_text =
      fmt::format("two-sided at {:.3g} per n = {:.3g} / {} n over all groups; {}", level, f.share,
                  f.growth_tests, f.share_text);
  const std::string law_text =
      without_law ? fmt::format("; {} n too small for the law not tested", without_law) : "";
  if (failing)
    return {name, Verdict::kFail,
            fmt::format("mean b_max departs from the exact law's E[b_max] (F(b)^s, "
                        "s = ceil(c ln n)) at {} of {} n ({}): {}{}",
                        failing, points.size(), level_text, failures, law_text)};
  return {name, Verdict::kPass,
          fmt::format("mean b_max matches the exact law's E[b_max] (F(b)^s, "
                      "s = ceil(c ln n)) at all {} n in [{}, {}] ({}); largest "
                      "|z|: {}{}",
                      points.size(), points.front().cell->n_text, points.back().cell->n_text,
                      level_text, describe_point(*worst), law_text)};
}

// Info: which growth model the measured means follow across n.
CheckOutcome growth_fit_line(const std::string& name, const std::vector<GrowthPoint>& points) {
  if (points.size() < 3)
    return {name, Verdict::kNotApplicable,
            "fewer than three n where the law applies: no model comparison"};
  std::vector<double> y, y_law, w;
  for (const auto& g : points) {
    y.push_back(g.cell->mean_b_max);
    y_law.push_back(g.law_mean);
    w.push_back(static_cast<double>(g.cell->trials) / (g.law_sd * g.law_sd));
  }
  struct Model {
    const char* name;
    double (*g)(double ln_n);
  };
  const Model models[] = {
      {"ln ln n", [](double l) { return std::log(l); }},
      {"ln n", [](double l) { return l; }},
      {"sqrt(ln n)", [](double l) { return std::sqrt(l); }},
  };
  const double dof1 = static_cast<double>(points.size() - 1),
               dof2 = static_cast<double>(points.size() - 2);
  double best_score = stats::weighted_least_squares({}, y, w).chi_square / dof1;
  std::string best = "constant";
  std::string fits = fmt::format("constant {:.3g} [{:.3g}]", best_score,
                                 stats::weighted_least_squares({}, y_law, w).chi_square / dof1);
  double slope = 0, slope_law = 0;
  for (const auto& m : models) {
    std::vector<double> x;
    for (const auto& g : points)
      x.push_back(g.cell->sigma * m.g(std::log(static_cast<double>(g.cell->n))));
    const auto fit = stats::weighted_least_squares(x, y, w);
    const auto fit_law = stats::weighted_least_squares(x, y_law, w);
    const double score = fit.chi_square / dof2, score_law = fit_law.chi_square / dof2;
    if (m.g == models[0].g) slope = fit.slope, slope_law = fit_law.slope;
    fits += fmt::format(", sigma {} {:.3g} [{:.3g}]", m.name, score, score_law);
    if (score < best_score) best_score = score, best = std::string("sigma ") + m.name;
  }
  return {name, Verdict::kInfo,
          fmt::format("chi2/dof of weighted least-squares fits of mean b_max over {} n to "
                      "a + b g(n) [the exact law's E[b_max] fitted alike]: {}; best: {}; "
                      "slope b on sigma ln ln n {:.3f} [law {:.3f}]",
                      points.size(), fits, best, slope, slope_law)};
}

void growth_lines(const Families& f, std::vector<CheckOutcome>& out) {
  for (const auto& key : f.order) {
    const auto& group = f.groups.at(key);
    const std::string name = fmt::format("growth[sigma={},c={}]", key.first, key.second);
    std::vector<GrowthPoint> points;
    for (const auto* c : group)
      if (c->law_applies) points.push_back({c});
    const std::size_t without_law = group.size() - points.size();
    if (points.size() < 2) {
      out.push_back({name, Verdict::kNotApplicable,
                     fmt::format("fewer than two n where the law F(b)^s applies ({} of {} n "
                                 "too small for their trial count)",
                                 without_law, group.size())});
      continue;
    }
    out.push_back(growth_line(name, points, without_law, f));
    out.push_back(
        growth_fit_line(fmt::format("growth-fit[sigma={},c={}]", key.first, key.second), points));
  }
}

}  // namespace blocksize_checks

std::vector<CheckOutcome> check_blocksize_table(const CsvTable& table, double alpha) {
  using namespace blocksize_checks;
  if (!(alpha > 0 && alpha < 1))
    throw std::logic_error(fmt::format("alpha must be in (0, 1), got {}", alpha));
  const std::vector<BlocksizeCellStats> cells = blocksize_cell_stats(table);
  if (cells.empty()) return {{"blocksize", Verdict::kNotApplicable, "table has no rows"}};
  const Families f = families_of(cells, alpha);
  std::vector<CheckOutcome> out;
  bound_lines(cells, f, out);
  for (const auto& c : cells) out.push_back(law_line(c, f));
  growth_lines(f, out);
  return out;
}

}  // namespace poslsh
