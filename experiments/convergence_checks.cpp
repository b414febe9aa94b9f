// The theorem checks on convergence tables (see check_convergence_table in
// convergence.h for what each one asserts and why).
#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "convergence.h"
#include "least_squares.h"

namespace poslsh {

namespace {

constexpr double kBinomialFalseAlarm = 1e-3;
constexpr double kSlopeLow = -0.6, kSlopeHigh = -0.4;
constexpr double kConstantFactor = 2.0;
constexpr double kMinRateS = 4;

// The most violations a binomial(rows, p) exceeds with probability <= alpha.
std::int64_t allowed_violations(std::int64_t rows, double p, double alpha) {
  if (rows == 0) return 0;
  if (p >= 1.0) return rows;
  boost::math::binomial_distribution<double> b(static_cast<double>(rows), p);
  for (std::int64_t k = 0; k <= rows; ++k)
    if (boost::math::cdf(boost::math::complement(b, static_cast<double>(k))) <= alpha) return k;
  return rows;
}

using Group = std::tuple<std::string, double, double>;  // form, n, sigma

std::string group_name(const Group& g) {
  return fmt::format("{}n={},sigma={}", std::get<0>(g).empty() ? "" : std::get<0>(g) + ",",
                     std::get<1>(g), std::get<2>(g));
}

struct Means {
  // s -> (sum, count) of an error over trials.
  std::map<double, std::pair<double, int>> by_s;
  void add(double s, double v) {
    auto& e = by_s[s];
    e.first += v;
    e.second += 1;
  }
};

}  // namespace

std::vector<CheckOutcome> check_convergence_table(const CsvTable& table) {
  std::vector<CheckOutcome> out;
  const bool has_form = table.has_column("form");
  const bool has_p = table.has_column("p");
  const std::size_t rows = table.size();
  if (rows == 0) {
    out.push_back({"rows", Verdict::kFail, "the table has no rows"});
    return out;
  }

  // 1. Bounds. Each bound holds with probability >= 1 - p for one row. Rows of
  // one trial are not independent (they use prefixes of one hash sequence, and
  // pitches of different sigma share random numbers), but the trials of one
  // (form, n, sigma, s) cell are: so per cell the number of violating trials is
  // at most Binomial(trials, p) in distribution, and a Bonferroni correction
  // over cells keeps the family-wise false-alarm rate <= 1e-3.
  struct Cell {
    std::int64_t trials = 0, spectral_trials = 0, spectral = 0, max = 0, b_max = 0;
  };
  std::map<std::tuple<std::string, double, double, double>, Cell> cells;
  std::int64_t not_converged = 0;
  double p = 0.0;
  const bool has_bmax_bound = table.has_column("b_max_bound");
  for (std::size_t r = 0; r < rows; ++r) {
    p = std::max(p, has_p ? table.number(r, "p") : 0.01);
    Cell& c = cells[{has_form ? table.text(r, "form") : "", table.number(r, "n"),
                     table.number(r, "sigma"), table.number(r, "s")}];
    ++c.trials;
    if (table.text(r, "status") != "ok") {
      ++not_converged;
    } else {
      ++c.spectral_trials;
      // The upper end of the solver's bracket: a violation cannot hide in the
      // solver's tolerance.
      const double upper =
          table.number(r, "spectral_error") * (1 + table.number(r, "spectral_accuracy"));
      c.spectral += upper > table.number(r, "spectral_bound");
    }
    c.max += table.number(r, "max_error") > table.number(r, "max_bound");
    if (has_bmax_bound) c.b_max += table.number(r, "b_max") > table.number(r, "b_max_bound");
  }
  const double per_cell_alpha = kBinomialFalseAlarm / static_cast<double>(cells.size());
  const auto bound_outcome = [&](const std::string& name, std::int64_t Cell::*violations,
                                 std::int64_t Cell::*trials) {
    std::int64_t total = 0, failing_cells = 0, total_trials = 0;
    for (const auto& [key, c] : cells) {
      total += c.*violations;
      total_trials += c.*trials;
      failing_cells += c.*violations > allowed_violations(c.*trials, p, per_cell_alpha);
    }
    out.push_back({"bound " + name, failing_cells == 0 ? Verdict::kPass : Verdict::kFail,
                   fmt::format("{} of {} rows above the bound; {} of {} (n, sigma, s) cells have "
                               "more violating trials than Binomial(trials, p = {}) allows at "
                               "{:.2g} per cell (family-wise false alarm <= {})",
                               total, total_trials, failing_cells, cells.size(), p, per_cell_alpha,
                               kBinomialFalseAlarm)});
  };
  bound_outcome("spectral", &Cell::spectral, &Cell::spectral_trials);
  bound_outcome("max", &Cell::max, &Cell::trials);
  if (has_bmax_bound) bound_outcome("b_max", &Cell::b_max, &Cell::trials);
  out.push_back({"spectral solves", Verdict::kNotApplicable,
                 fmt::format("{} of {} rows not converged (left out of spectral checks)",
                             not_converged, rows)});

  // Per-(form, n, sigma) means over trials for each s.
  std::map<Group, Means> spectral, maxnorm;
  for (std::size_t r = 0; r < rows; ++r) {
    const Group g{has_form ? table.text(r, "form") : "", table.number(r, "n"),
                  table.number(r, "sigma")};
    const double s = table.number(r, "s");
    maxnorm[g].add(s, table.number(r, "max_error"));
    if (table.text(r, "status") == "ok") spectral[g].add(s, table.number(r, "spectral_error"));
  }

  // 2. Rate.
  const auto rate = [&](const std::string& what, const std::map<Group, Means>& groups) {
    for (const auto& [g, m] : groups) {
      std::vector<double> x, y;
      for (const auto& [s, e] : m.by_s) {
        if (s < kMinRateS) continue;
        x.push_back(std::log(s));
        y.push_back(std::log(e.first / e.second));
      }
      const std::string name = fmt::format("rate[{}] {}", group_name(g), what);
      if (x.size() < 4) {
        out.push_back({name, Verdict::kNotApplicable,
                       fmt::format("{} values of s >= {} (needs 4)", x.size(), kMinRateS)});
        continue;
      }
      const double b = least_squares_slope(x, y);
      const bool ok = b >= kSlopeLow && b <= kSlopeHigh;
      out.push_back({name, ok ? Verdict::kPass : Verdict::kFail,
                     fmt::format("slope of log(mean error) vs log s = {:.4f} over {} values of s "
                                 "(accepted [{}, {}])",
                                 b, x.size(), kSlopeLow, kSlopeHigh)});
    }
  };
  rate("spectral", spectral);
  rate("max", maxnorm);

  // 3. Constant: mean spectral_error sqrt(s) / sigma across s >= 4.
  std::map<std::pair<std::string, double>, std::vector<std::pair<double, double>>> across_n;
  for (const auto& [g, m] : spectral) {
    std::vector<double> c;
    for (const auto& [s, e] : m.by_s)
      if (s >= kMinRateS) c.push_back(e.first / e.second * std::sqrt(s) / std::get<2>(g));
    const std::string name = fmt::format("constant[{}]", group_name(g));
    if (c.size() < 2) {
      out.push_back({name, Verdict::kNotApplicable,
                     fmt::format("{} values of s >= {} (needs 2)", c.size(), kMinRateS)});
      continue;
    }
    const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
    const bool ok = *hi <= kConstantFactor * *lo;
    out.push_back({name, ok ? Verdict::kPass : Verdict::kFail,
                   fmt::format("mean error sqrt(s)/sigma in [{:.4g}, {:.4g}], ratio {:.3f} "
                               "(accepted <= {})",
                               *lo, *hi, *hi / *lo, kConstantFactor)});
    double mean = 0;
    for (double v : c) mean += v / static_cast<double>(c.size());
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
    out.push_back({name, Verdict::kNotApplicable,
                   fmt::format("fitted exponent of mean error sqrt(s)/sigma in ln n: {:.3f} over "
                               "{} values of n (theory allows up to 0.5; report only)",
                               least_squares_slope(x, y), x.size())});
  }
  return out;
}

}  // namespace poslsh
