// `poslsh check` on attention tables:
//  1. max_error <= certificate (+ the float64 rounding allowance) on every row:
//     deterministic, one violation is a bug. Also max_error <= uniform_bound.
//  2. lsh: slope of log(mean over trials of max_error) vs log s in [-0.6, -0.4].
//  3. lsh at the largest s beats the fixed blocks of the same mean block width
//     (width round(2 sigma) = E[delta]); and, for information, where the
//     sliding window of equal cost sits.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "attention.h"
#include "cli_common.h"
#include "least_squares.h"

namespace poslsh {

std::vector<CheckOutcome> check_attention_table(const CsvTable& t) {
  std::vector<CheckOutcome> out;
  const bool has_head = t.has_column("head"), has_form = t.has_column("form"),
             has_width = t.has_column("width");
  auto group_of = [&](std::size_t r) {
    return fmt::format("n={},d={},sigma={}{}{}", t.text(r, "n"), t.text(r, "d"), t.text(r, "sigma"),
                       has_head ? ",head=" + t.text(r, "head") : "",
                       has_form ? "," + t.text(r, "form") : "");
  };

  // 1. Certificate and uniform bound, every row.
  std::size_t cert_bad = 0, unif_bad = 0;
  std::string first_cert, first_unif;
  double worst_ratio = 0;
  for (std::size_t r = 0; r < t.size(); ++r) {
    const double err = t.number(r, "max_error"), cert = t.number(r, "certificate");
    const double allow = t.number(r, "rounding_allowance"), unif = t.number(r, "uniform_bound");
    if (!(err <= cert + allow)) {
      if (cert_bad++ == 0)
        first_cert = fmt::format("row {} ({} {} s={} trial={}): max_error {} > certificate {}",
                                 r + 2, group_of(r), t.text(r, "estimator"), t.text(r, "s"),
                                 t.text(r, "trial"), err, cert);
    }
    if (!(err <= unif + allow)) {
      if (unif_bad++ == 0)
        first_unif = fmt::format("row {}: max_error {} > uniform_bound {}", r + 2, err, unif);
    }
    if (cert > 0) worst_ratio = std::max(worst_ratio, err / cert);
  }
  out.push_back({"certificate", cert_bad ? Verdict::kFail : Verdict::kPass,
                 cert_bad ? fmt::format("{} of {} rows violate max_error <= certificate; first: {}",
                                        cert_bad, t.size(), first_cert)
                          : fmt::format("max_error <= certificate on all {} rows (largest "
                                        "max_error/certificate {:.3g})",
                                        t.size(), worst_ratio)});
  out.push_back({"uniform-bound", unif_bad ? Verdict::kFail : Verdict::kPass,
                 unif_bad ? fmt::format("{} rows violate; first: {}", unif_bad, first_unif)
                          : fmt::format("max_error <= uniform_bound on all {} rows", t.size())});

  // Per group: lsh mean error per s; fixed rows; window rows per s.
  struct Group {
    std::map<double, std::pair<double, int>> lsh;     // s -> (sum max_error, count)
    std::map<double, double> lsh_kpq;                 // s -> sum keys_per_query
    std::map<double, std::pair<double, int>> window;  // s -> (sum, count), matched windows
    std::map<double, double> window_width;
    std::vector<std::pair<double, double>> fixed;  // (width, max_error)
    double sigma = 0;
  };
  std::map<std::string, Group> groups;
  for (std::size_t r = 0; r < t.size(); ++r) {
    Group& g = groups[group_of(r)];
    g.sigma = t.number(r, "sigma");
    const std::string est = t.text(r, "estimator");
    const double s = t.number(r, "s"), err = t.number(r, "max_error");
    if (est == "lsh") {
      g.lsh[s].first += err;
      g.lsh[s].second += 1;
      if (t.has_column("keys_per_query")) g.lsh_kpq[s] += t.number(r, "keys_per_query");
    } else if (est == "fixed") {
      g.fixed.push_back({has_width ? t.number(r, "width") : NAN, err});
    } else if (est == "window" && s > 0) {
      g.window[s].first += err;
      g.window[s].second += 1;
      if (has_width) g.window_width[s] += t.number(r, "width");
    }
  }

  for (const auto& [name, g] : groups) {
    if (g.lsh.empty()) continue;
    // 2. Rate.
    if (g.lsh.size() < 2) {
      out.push_back({fmt::format("rate[{}]", name), Verdict::kNotApplicable,
                     "needs lsh rows at two or more values of s"});
    } else {
      std::vector<double> x, y;
      std::string pts;
      for (const auto& [s, acc] : g.lsh) {
        x.push_back(std::log(s));
        y.push_back(std::log(acc.first / acc.second));
        pts += fmt::format("{}{}:{:.3g}", pts.empty() ? "" : " ", s, acc.first / acc.second);
      }
      const double slope = least_squares_slope(x, y);
      const bool ok = slope >= -0.6 && slope <= -0.4;
      out.push_back({fmt::format("rate[{}]", name), ok ? Verdict::kPass : Verdict::kFail,
                     fmt::format("slope of log mean max_error vs log s = {:.3f} (accepted "
                                 "[-0.6, -0.4]); s:mean_error {}",
                                 slope, pts)});
    }
    // 3. LSH at the largest s vs fixed blocks of the same mean width.
    const auto& [s_max, acc] = *g.lsh.rbegin();
    const double lsh_err = acc.first / acc.second;
    const double w_same = std::max(1.0, std::round(2 * g.sigma));
    const std::pair<double, double>* fixed = nullptr;
    for (const auto& f : g.fixed)
      if (f.first == w_same) fixed = &f;
    if (!fixed) {
      out.push_back({fmt::format("beats-fixed[{}]", name), Verdict::kNotApplicable,
                     fmt::format("no fixed row of width round(2 sigma) = {}", w_same)});
    } else {
      const bool ok = lsh_err < fixed->second;
      out.push_back({fmt::format("beats-fixed[{}]", name), ok ? Verdict::kPass : Verdict::kFail,
                     fmt::format("lsh mean max_error at s={} is {:.3g}; fixed blocks of width {} "
                                 "(= round(2 sigma) = E[delta]): {:.3g}",
                                 s_max, lsh_err, w_same, fixed->second)});
    }
    // Where the sliding window of equal cost sits (information).
    if (g.window.count(s_max)) {
      const auto& wacc = g.window.at(s_max);
      const double werr = wacc.first / wacc.second;
      const double width =
          g.window_width.count(s_max) ? g.window_width.at(s_max) / wacc.second : NAN;
      std::string verdict;
      if (werr == 0)
        verdict = "the window is exact (error 0 in float64)";
      else if (werr < lsh_err)
        verdict = fmt::format("window better by {:.3g}x", lsh_err / werr);
      else
        verdict = fmt::format("lsh better by {:.3g}x", werr / lsh_err);
      out.push_back({fmt::format("window-at-equal-cost[{}]", name), Verdict::kNotApplicable,
                     fmt::format("info: at the cost of lsh with s={} (mean half-width {:.1f}), the "
                                 "sliding window's max_error is {:.3g} vs lsh {:.3g}: {}",
                                 s_max, width, werr, lsh_err, verdict)});
    } else {
      out.push_back({fmt::format("window-at-equal-cost[{}]", name), Verdict::kNotApplicable,
                     fmt::format("info: no cost-matched window rows at s={} (run with "
                                 "--estimator including window and no --width); its bias error "
                                 "alone is e^-(w+1)/sigma with w ~ sigma s = {:.3g}",
                                 s_max, std::exp(-(g.sigma * s_max + 0.5) / g.sigma))});
    }
  }
  return out;
}

}  // namespace poslsh
