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

namespace poslsh {

namespace {

constexpr double kBinomialFalseAlarm = 1e-3;
constexpr double kSlopeLow = -0.6, kSlopeHigh = -0.4;
constexpr double kConstantFactor = 2.0;
constexpr double kMinRateS = 4;

// The most violations a binomial(rows, p) exceeds with probability <= 1e-3.
std::int64_t allowed_violations(std::int64_t rows, double p) {
  if (rows == 0) return 0;
  if (p >= 1.0) return rows;
  boost::math::binomial_distribution<double> b(static_cast<double>(rows), p);
  for (std::int64_t k = 0; k <= rows; ++k)
    if (boost::math::cdf(boost::math::complement(b, static_cast<double>(k))) <= kBinomialFalseAlarm)
      return k;
  return rows;
}

// Least-squares slope of y against x.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : std::nan("");
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

  // 1. Bounds. Rows are not independent: within a trial every row uses
  // prefixes of the same hash sequence, and pitches of different sigma share
  // their random numbers. Trials are independent, so the unit of the binomial
  // count is the trial: a trial "violates" when any of its rows does, which by
  // the union bound has probability <= p times the number of its rows; for
  // b_max <= floor(sigma x_p(s)) + 1 the failure event only depends on the
  // first s standardised pitches, so it is p times the number of distinct s.
  struct Unit {
    std::int64_t rows = 0, spectral_rows = 0;
    std::set<double> s_values;
    bool spectral = false, max = false, b_max = false;
  };
  std::map<std::string, Unit> units;
  std::int64_t not_converged = 0;
  double p = 0.0;
  const bool has_bmax_bound = table.has_column("b_max_bound");
  for (std::size_t r = 0; r < rows; ++r) {
    p = std::max(p, has_p ? table.number(r, "p") : 0.01);
    Unit& u = units[table.text(r, "trial")];
    ++u.rows;
    u.s_values.insert(table.number(r, "s"));
    if (table.text(r, "status") != "ok") {
      ++not_converged;
    } else {
      ++u.spectral_rows;
      const double upper =
          table.number(r, "spectral_error") * (1 + table.number(r, "spectral_accuracy"));
      u.spectral |= upper > table.number(r, "spectral_bound");
    }
    u.max |= table.number(r, "max_error") > table.number(r, "max_bound");
    if (has_bmax_bound) u.b_max |= table.number(r, "b_max") > table.number(r, "b_max_bound");
  }
  const auto bound_outcome = [&](const std::string& name, bool Unit::*flag,
                                 auto rows_at_risk) {
    std::int64_t violating = 0;
    double q = 0.0;
    for (const auto& [trial, u] : units) {
      violating += u.*flag;
      q = std::max(q, std::min(1.0, p * static_cast<double>(rows_at_risk(u))));
    }
    const auto n_units = static_cast<std::int64_t>(units.size());
    const std::int64_t allowed = allowed_violations(n_units, q);
    out.push_back({"bound " + name, violating <= allowed ? Verdict::kPass : Verdict::kFail,
                   fmt::format("{} of {} trials have a row above the bound; allowed {} "
                               "(binomial({}, {:.4g}) exceeds it w.p. <= {}; {:.4g} = union "
                               "bound over a trial's rows at p = {})",
                               violating, n_units, allowed, n_units, q, kBinomialFalseAlarm, q,
                               p)});
  };
  bound_outcome("spectral", &Unit::spectral, [](const Unit& u) { return u.spectral_rows; });
  bound_outcome("max", &Unit::max, [](const Unit& u) { return u.rows; });
  if (has_bmax_bound)
    bound_outcome("b_max", &Unit::b_max, [](const Unit& u) { return u.s_values.size(); });
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
      const double b = slope(x, y);
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
    const std::string name =
        fmt::format("constant growth in ln n[{}sigma={}]", key.first.empty() ? "" : key.first + ",",
                    key.second);
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
                               slope(x, y), x.size())});
  }
  return out;
}

}  // namespace poslsh
