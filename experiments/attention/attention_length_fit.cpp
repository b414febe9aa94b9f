#include "experiments/attention/attention_length_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include "stats/least_squares.h"
#include "experiments/checks/rate_interval.h"
#include "stats/median_interval.h"
#include "stats/binomial.h"

namespace poslsh::attention_checks {

namespace {

// Length groups: lsh errors per trial and n at fixed (d, sigma, head, form,
// s), for the length-extrapolation lines.
struct LengthPoint {
  double rel = 0, rel_bound = 0, max_error = 0;
};
struct LengthGroup {
  double sigma = 0;
  std::map<double, std::map<double, LengthPoint>> by_trial;  // trial -> n -> point
};

LengthPoint length_point(const Table& tb, std::size_t r) {
  const CsvTable& t = tb.t;
  LengthPoint p;
  p.rel = nonnegative(t, r, "rel_frobenius_error", false);
  p.max_error = t.number(r, "max_error");
  // The reference is known to |T_ref - T*| <= rho entrywise, so the
  // numerator ||T~ - T_ref||_F moves by at most rho sqrt(n d) and so does
  // the denominator ||T_ref||_F; with ||T~ - T_ref||_F >= max_error and
  // ||T_ref||_F = ||T~ - T_ref||_F / rel, the relative error is known to
  // within rel (a + b) / (1 - b), a = rho sqrt(n d) / max_error, b = a rel.
  const double rho = tb.ref_bound(r);
  if (rho > 0) {
    const double a = rho * std::sqrt(t.number(r, "n") * t.number(r, "d")) / p.max_error,
                 b = a * p.rel;
    p.rel_bound = p.max_error > 0 && b < 1 ? p.rel * (a + b) / (1 - b)
                                           : std::numeric_limits<double>::infinity();
  }
  return p;
}

std::map<std::string, LengthGroup> length_groups(const Table& tb) {
  const CsvTable& t = tb.t;
  std::map<std::string, LengthGroup> lengths;
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (t.text(r, "estimator") != "lsh") continue;
    const std::string key =
        fmt::format("d={},sigma={}{}{},s={}", t.text(r, "d"), t.text(r, "sigma"),
                    tb.has_head ? ",head=" + t.text(r, "head") : "",
                    tb.has_form ? "," + t.text(r, "form") : "", t.text(r, "s"));
    const LengthPoint p = length_point(tb, r);
    LengthGroup& g = lengths[key];
    g.sigma = t.number(r, "sigma");
    g.by_trial[t.number(r, "trial")][t.number(r, "n")] = p;
  }
  return lengths;
}

// One length group's per-trial exponents (both ends of the reference's box)
// and its per-n means.
struct LengthFit {
  std::vector<double> slopes, slopes_hi, max_growth;
  std::size_t unresolved = 0;
  std::map<double, std::tuple<double, double, int>> mean;  // n -> (sum rel, sum max, count)
};

LengthFit fit_length(const LengthGroup& g) {
  LengthFit f;
  for (const auto& [trial, by_n] : g.by_trial) {
    std::vector<double> x, y, rb, ln_n, max_error;
    for (const auto& [n, p] : by_n) {
      auto& [rel_sum, max_sum, count] = f.mean[n];
      rel_sum += p.rel;
      max_sum += p.max_error;
      count += 1;
      ln_n.push_back(std::log(n));
      max_error.push_back(p.max_error);
      if (p.rel > 0) {
        x.push_back(std::log(n));
        y.push_back(p.rel);
        rb.push_back(p.rel_bound);
      }
    }
    if (ln_n.size() >= 2) f.max_growth.push_back(stats::least_squares_slope(ln_n, max_error));
    if (x.size() < 2) continue;
    const auto [lo, hi] = stats::slope_envelope(x, y, rb);
    if (std::isnan(lo)) {
      ++f.unresolved;
      continue;
    }
    f.slopes.push_back(lo);
    f.slopes_hi.push_back(hi);
  }
  return f;
}

std::string max_error_note(const LengthFit& f) {
  std::string max_pts;
  for (const auto& [n, acc] : f.mean)
    max_pts += fmt::format("{}{}:{:.3g}", max_pts.empty() ? "" : " ", n,
                           std::get<1>(acc) / std::get<2>(acc));
  double growth = 0;
  for (double v : f.max_growth) growth += v / static_cast<double>(f.max_growth.size());
  return fmt::format(
      "; max_error, reported, not tested (the largest of n row errors grows like the row "
      "law's 1 - 1/n quantile): n:mean_max_error {}, mean growth {:.3g} per unit of ln n",
      max_pts, growth);
}

std::string rel_points(const LengthFit& f) {
  std::string rel_pts;
  for (const auto& [n, acc] : f.mean)
    rel_pts += fmt::format("{}{}:{:.4g}", rel_pts.empty() ? "" : " ", n,
                           std::get<0>(acc) / std::get<2>(acc));
  return rel_pts;
}

// Length extrapolation (docs/MATH.md §7). The hash law and the
// per-position Q/K/V law are shift-invariant, so away from the two ends
// every row's error has one law, whatever n: the mean squared row error,
// hence rel_frobenius_error, does not depend on n except through the rows
// near the ends. Per trial, c is the least-squares slope of
// ln rel_frobenius_error vs ln n (error ~ n^c); trials are independent, so
// the number of trials with c above the tolerance
// c_tol = 0.02 + 20 sigma / (n_min ln(n_max / n_min)), which covers the end
// rows (those within ~10 sigma of an end, 20 sigma / n of all rows, may have
// another error law), is at most Binomial(m, 1/2) when the median c is
// <= c_tol: FAIL when its exact tail is <= level (one-sided sign test, no
// assumption on the law of c). Fewer trials than that tail needs: info.
// max_error is reported, not tested: the largest of n identically
// distributed row errors grows like the row law's 1 - 1/n quantile, and for
// Gaussian V times the hash noise that tail is exponential (about a + b ln n),
// not the sub-Gaussian sqrt(ln n) of the mask's max-norm error.
// With a band-exact reference, each rel_frobenius_error is known to within
// the bound computed above: the test runs at both ends of that box and gives
// its verdict only where they agree (info otherwise).
CheckOutcome length_line(const std::string& key, const LengthFit& f, double c_tol, double level) {
  const std::string name = fmt::format("length[{}]", key);
  const std::string max_note = max_error_note(f);
  if (f.slopes.size() < kMinRateTrials)
    return {name, Verdict::kNotApplicable,
            fmt::format("{} trials with lsh rows at two or more n (and no zero error){}; "
                        "needs {}; n:mean_rel_frobenius_error {}",
                        f.slopes.size(),
                        f.unresolved ? fmt::format(" and {} whose error the reference's bound "
                                                   "does not resolve",
                                                   f.unresolved)
                                     : std::string(),
                        kMinRateTrials, rel_points(f)) +
                max_note};
  const std::size_t m = f.slopes.size();
  const std::size_t k = static_cast<std::size_t>(std::count_if(
      f.slopes.begin(), f.slopes.end(), [&](double v) { return v > c_tol; }));
  const stats::MedianInterval mi = stats::median_interval(f.slopes, 2 * level);
  return {name, Verdict::kInfo,
          fmt::format(
              "descriptive, not a test: row errors away from the ends have one law whatever n, "
              "but how much the end rows and the reference's bound move the exponent is not "
              "proven, so the tolerance {:.3g} is a heuristic and no verdict is drawn (the "
              "error-law lines test each n); rel_frobenius_error vs n at fixed s: median "
              "per-trial exponent c in error ~ n^c = {:.4f}; {} of {} independent trials above "
              "{:.3g} (P(Binomial({}, 1/2) >= {}) = {:.3g}); order-statistic interval "
              "[{:.4f}, {:.4f}] for the median; n:mean_rel_frobenius_error {}",
              c_tol, mi.median, k, m, c_tol, m, k, stats::half_binomial_tail(m, k), mi.low, mi.high,
              rel_points(f)) +
              max_note};
}

}  // namespace

void length_lines(const Table& tb, double level, std::vector<CheckOutcome>& out) {
  for (const auto& [key, g] : length_groups(tb)) {
    const LengthFit f = fit_length(g);
    if (f.mean.size() < 2) continue;  // one length: nothing to extrapolate
    const double n_min = f.mean.begin()->first, n_max = f.mean.rbegin()->first;
    const double c_tol = 0.02 + 20 * g.sigma / (n_min * std::log(n_max / n_min));
    out.push_back(length_line(key, f, c_tol, level));
  }
}

}  // namespace poslsh::attention_checks
