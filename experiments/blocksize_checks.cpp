// Statistics, summary table and `poslsh check` for blocksize tables.
#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "block_size_law.h"
#include "blocksize.h"
#include "cli_common.h"

namespace poslsh {

namespace {

std::int64_t as_integer(const CsvTable& t, std::size_t row, const std::string& col) {
  const double v = t.number(row, col);
  if (!std::isfinite(v) || v != std::floor(v))
    throw std::invalid_argument(
        fmt::format("blocksize table: column {} row {} is not an integer", col, row + 1));
  return static_cast<std::int64_t>(v);
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

// Smallest k with P(Binomial(trials, p) > k) <= alpha.
std::int64_t binomial_threshold(std::int64_t trials, double p, double alpha) {
  const boost::math::binomial_distribution<double> bin(static_cast<double>(trials), p);
  std::int64_t k = static_cast<std::int64_t>(std::floor(static_cast<double>(trials) * p));
  while (k > 0 &&
         boost::math::cdf(boost::math::complement(bin, static_cast<double>(k - 1))) <= alpha)
    --k;
  while (k < trials &&
         boost::math::cdf(boost::math::complement(bin, static_cast<double>(k))) > alpha)
    ++k;
  return k;
}

}  // namespace

std::vector<BlocksizeCellStats> blocksize_cell_stats(const CsvTable& table) {
  std::vector<BlocksizeCellStats> cells;
  std::map<std::string, std::size_t> index;
  std::vector<double> pitch_sum;
  for (std::size_t r = 0; r < table.size(); ++r) {
    const std::string key = table.text(r, "n") + "|" + table.text(r, "sigma") + "|" +
                            table.text(r, "s") + "|" + table.text(r, "s_log_c");
    auto it = index.find(key);
    if (it == index.end()) {
      BlocksizeCellStats c;
      c.n_text = table.text(r, "n");
      c.sigma_text = table.text(r, "sigma");
      c.s_text = table.text(r, "s");
      c.s_log_c_text = table.text(r, "s_log_c");
      c.n = as_integer(table, r, "n");
      c.s = as_integer(table, r, "s");
      c.sigma = table.number(r, "sigma");
      c.s_log_c = c.s_log_c_text.empty() ? 0.0 : table.number(r, "s_log_c");
      c.p = table.number(r, "p");
      c.b_max_bound = as_integer(table, r, "b_max_bound");
      if (c.n < 1 || c.s < 1 || !(c.sigma > 0) || !std::isfinite(c.sigma) || !(c.p > 0 && c.p < 1))
        throw std::invalid_argument(
            fmt::format("blocksize table: row {} has invalid n, sigma, s or p", r + 1));
      it = index.emplace(key, cells.size()).first;
      cells.push_back(std::move(c));
      pitch_sum.push_back(0);
    }
    BlocksizeCellStats& c = cells[it->second];
    const std::int64_t b = as_integer(table, r, "b_max");
    if (b < 1 || b > c.n)
      throw std::invalid_argument(
          fmt::format("blocksize table: row {} has b_max = {} outside [1, n]", r + 1, b));
    c.b_max.push_back(b);
    if (b > as_integer(table, r, "b_max_bound")) ++c.exceed_bound;
    pitch_sum[it->second] += table.number(r, "max_pitch");
  }
  for (std::size_t i = 0; i < cells.size(); ++i) {
    BlocksizeCellStats& c = cells[i];
    c.trials = static_cast<std::int64_t>(c.b_max.size());
    std::vector<std::int64_t> sorted = c.b_max;
    std::sort(sorted.begin(), sorted.end());
    double sum = 0;
    for (const auto b : sorted) sum += static_cast<double>(b);
    c.mean_b_max = sum / static_cast<double>(c.trials);
    c.mean_max_pitch = pitch_sum[i] / static_cast<double>(c.trials);
    c.median_b_max = empirical_quantile(sorted, 0.5);
    c.q10_b_max = empirical_quantile(sorted, 0.1);
    c.q90_b_max = empirical_quantile(sorted, 0.9);
    c.max_b_max = sorted.back();
    const BlockSizeLaw law(c.n, c.sigma, c.s);
    c.law_mean_b_max = mean(law);
    c.law_median_b_max = median(law);
    c.law_mean_max_pitch = expected_max_pitch(c.sigma, c.s).value;
    c.law_applies = law_applies(c.n, c.sigma, c.s, c.trials);
    const BlockSizeFit fit = block_size_fit(c.b_max, law);
    c.gof_statistic = fit.test.statistic;
    c.gof_dof = fit.test.dof;
    c.gof_p_value = fit.test.p_value;
    const double lnln = std::log(std::log(static_cast<double>(c.n)));
    c.ratio_sigma_lnln_n =
        lnln > 0 ? c.mean_b_max / (c.sigma * lnln) : std::numeric_limits<double>::quiet_NaN();
  }
  return cells;
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
                      format_double(c.mean_b_max),
                      format_double(c.law_mean_b_max),
                      std::to_string(c.median_b_max),
                      std::to_string(c.law_median_b_max),
                      std::to_string(c.q10_b_max),
                      std::to_string(c.q90_b_max),
                      std::to_string(c.max_b_max),
                      format_double(c.mean_max_pitch),
                      format_double(c.law_mean_max_pitch),
                      std::to_string(c.b_max_bound),
                      std::to_string(c.exceed_bound),
                      c.law_applies ? "1" : "0",
                      format_double(c.gof_statistic),
                      std::to_string(c.gof_dof),
                      format_double(c.gof_p_value),
                      format_double(c.ratio_sigma_lnln_n)});
  }
  return text;
}

std::vector<CheckOutcome> check_blocksize_table(const CsvTable& table) {
  const std::vector<BlocksizeCellStats> cells = blocksize_cell_stats(table);
  std::vector<CheckOutcome> out;
  if (cells.empty()) {
    out.push_back({"blocksize", Verdict::kNotApplicable, "table has no rows"});
    return out;
  }

  // 1. The union bound, per cell (independent trials), Bonferroni over cells.
  {
    const double alpha = kBlocksizeFamilyAlpha / static_cast<double>(cells.size());
    std::int64_t total_exceed = 0, total_rows = 0, failing = 0;
    double worst_excess = -1;
    std::string worst;
    for (const auto& c : cells) {
      const std::int64_t limit = binomial_threshold(c.trials, c.p, alpha);
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
                                   format_double(c.p), limit, alpha)});
      }
    }
    out.push_back({"bound", failing ? Verdict::kFail : Verdict::kPass,
                   fmt::format("{} of {} rows above b_max_bound; {} of {} cells beyond their "
                               "Binomial(trials, p) limit at {:.3g} per cell (family-wise "
                               "false alarm <= {}); closest: {}",
                               total_exceed, total_rows, failing, cells.size(), alpha,
                               kBlocksizeFamilyAlpha, worst)});
  }

  // 2. Goodness of fit to F(b)^s where the law holds.
  {
    std::size_t fit_cells = 0;
    for (const auto& c : cells)
      if (c.law_applies && c.trials >= kBlocksizeMinFitTrials && c.gof_dof >= 1) ++fit_cells;
    const double threshold =
        kBlocksizeFamilyAlpha / static_cast<double>(std::max<std::size_t>(fit_cells, 1));
    for (const auto& c : cells) {
      const std::string name = fmt::format("law[{}]", cell_name(c));
      if (c.trials < kBlocksizeMinFitTrials) {
        out.push_back({name, Verdict::kNotApplicable,
                       fmt::format("{} trials < {}", c.trials, kBlocksizeMinFitTrials)});
      } else if (!c.law_applies) {
        out.push_back(
            {name, Verdict::kNotApplicable,
             fmt::format("n too small for F(b)^s: trials x E[max pitch]/(2n) = {:.3g} "
                         "> 0.5 expected deviating trials",
                         static_cast<double>(c.trials) * law_deviation_rate(c.n, c.sigma, c.s))});
      } else if (c.gof_dof < 1) {
        out.push_back({name, Verdict::kNotApplicable, "a single cell of expected count >= 5"});
      } else {
        out.push_back(
            {name, c.gof_p_value >= threshold ? Verdict::kPass : Verdict::kFail,
             fmt::format("chi2 = {:.2f}, dof = {}, p = {:.3g} (need >= {:.2g} = 1e-3 / "
                         "{} cells); median {} vs law {}, mean {:.3f} vs law {:.3f}",
                         c.gof_statistic, c.gof_dof, c.gof_p_value, threshold, fit_cells,
                         c.median_b_max, c.law_median_b_max, c.mean_b_max, c.law_mean_b_max)});
      }
    }
  }

  // 3. sigma ln ln n growth under s = ceil(c ln n).
  {
    std::map<std::pair<std::string, std::string>, std::vector<const BlocksizeCellStats*>> groups;
    std::vector<std::pair<std::string, std::string>> order;
    for (const auto& c : cells) {
      if (c.s_log_c <= 0) continue;
      const auto key = std::pair{c.sigma_text, c.s_log_c_text};
      if (!groups.contains(key)) order.push_back(key);
      groups[key].push_back(&c);
    }
    const double n_lo = std::ldexp(1.0, 10), n_hi = std::ldexp(1.0, 30);
    for (const auto& key : order) {
      double lo = std::numeric_limits<double>::infinity(), hi = 0;
      std::int64_t n_min = 0, n_max = 0;
      std::size_t used = 0;
      for (const auto* c : groups[key]) {
        const auto nd = static_cast<double>(c->n);
        if (nd < n_lo || nd > n_hi) continue;
        ++used;
        if (c->ratio_sigma_lnln_n < lo) lo = c->ratio_sigma_lnln_n, n_min = c->n;
        if (c->ratio_sigma_lnln_n > hi) hi = c->ratio_sigma_lnln_n, n_max = c->n;
      }
      const std::string name = fmt::format("growth[sigma={},c={}]", key.first, key.second);
      if (used < 2) {
        out.push_back({name, Verdict::kNotApplicable, "fewer than two n in [2^10, 2^30]"});
        continue;
      }
      out.push_back({name, hi <= 2 * lo ? Verdict::kPass : Verdict::kFail,
                     fmt::format("mean b_max / (sigma ln ln n) in [{:.3f} (n={}), {:.3f} (n={})] "
                                 "over {} n: ratio {:.3f} (need <= 2)",
                                 lo, n_min, hi, n_max, used, hi / lo)});
    }
  }
  return out;
}

}  // namespace poslsh
