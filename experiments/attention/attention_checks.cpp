// `poslsh check` on attention tables:
//  1. certificate: max_error <= certificate (+ the float64 rounding allowance)
//     on every row, each row against its own certificate: deterministic, one
//     violation is a bug (FAIL). The largest per-row max_error/certificate is
//     reported with its row.
//  2. uniform-bound: INFO with its smallest slack uniform_bound / max_error
//     (>= ~3e5 on sound runs: it cannot fail); FAIL only as a guard when a row
//     violates it (deterministic).
//  3. error-law (lsh rows with control columns), the statistical test: per
//     (group, s), the tested trials' rel_frobenius_error and max_error
//     against those of the same estimator on hashes of an independent
//     control sampler (control_sampler.h); under a sound sampler all of them
//     are i.i.d. whatever Q, K and V, so the exact two-sample rank test
//     (two_sample_rank.h) has its level on every input (docs/MATH.md §9).
//     trials-distinct: two trials with identical (max_error,
//     rel_frobenius_error) at every s FAIL, the chance of that on a sound
//     sampler charged to the level (n/a where it is too likely).
//  4. rate (lsh), per group and pooled: the per-trial slopes of log max_error
//     vs log s and the sign test's numbers, descriptive (info): nothing
//     proves where a sound estimator's median slope lies on every input.
//  5. beats-fixed: INFO, the ratio of lsh's mean max_error at the largest s to
//     that of fixed blocks of the same mean width (round(2 sigma) = E[delta]);
//     and, for information, where the sliding window of equal cost sits.
//  6. cost: WARNING when an approximation visits more keys per query than
//     exact attention would.
//  7. length (lsh rows at two or more n, fixed s; attention_length_fit.h):
//     per trial the exponent c in rel_frobenius_error ~ n^c and max_error's
//     growth, descriptive (info): the tolerance for the end rows is a
//     heuristic.
// With a band-exact reference (--reference band) each row's reference_bound
// bounds |measured - true error|: checks 1-2 add it to the margin; the
// error-law lines need nothing (tested and control errors are measured
// against the same reference, so they stay exchangeable).
// Unusable tables throw InputError: a duplicated column, a
// max_error that is NaN, infinite or negative, a certificate or allowance
// that is not a finite number >= 0, a NaN or negative uniform_bound (+inf is a
// valid bound).
#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "experiments/attention/attention.h"
#include "experiments/attention/attention_length_fit.h"
#include "experiments/attention/attention_table.h"
#include "internal/printable.h"
#include "runner/cli_common.h"
#include "stats/least_squares.h"
#include "experiments/checks/rate_interval.h"
#include "stats/two_sample_rank.h"
#include "stats/median_interval.h"

namespace poslsh {

namespace attention_checks {

double finite(const CsvTable& t, std::size_t r, const std::string& c) {
  const double v = t.number(r, c);
  if (!std::isfinite(v))
    unusable(fmt::format("row {}: {} is '{}'; expected a finite number", CsvTable::line_of(r), c,
                         detail::printable(t.text(r, c))));
  return v;
}

// What checks 1-2 need from every row: the violations and the extremes.
struct BoundScan {
  std::size_t cert_bad = 0, unif_bad = 0;
  std::string first_cert, first_unif;
  double worst_ratio = -1, least_slack = std::numeric_limits<double>::infinity();
  std::size_t worst_row = 0, slack_row = 0;
};

void scan_row_bounds(const Table& tb, std::size_t r, BoundScan& b) {
  const CsvTable& t = tb.t;
  const double err = nonnegative(t, r, "max_error", false);
  const double cert = nonnegative(t, r, "certificate", false);
  const double allow = nonnegative(t, r, "rounding_allowance", false);
  const double unif = nonnegative(t, r, "uniform_bound", true);
  const double refb = tb.ref_bound(r);
  if (!(err <= cert + allow + refb) && b.cert_bad++ == 0)
    b.first_cert = fmt::format(
        "{}: max_error {} > certificate {} + allowance {}{}", tb.row_name(r),
        t.text(r, "max_error"), t.text(r, "certificate"), t.text(r, "rounding_allowance"),
        refb > 0 ? " + reference_bound " + t.text(r, "reference_bound") : std::string());
  if (!(err <= unif + allow + refb) && b.unif_bad++ == 0)
    b.first_unif = fmt::format("{}: max_error {} > uniform_bound {}", tb.row_name(r),
                               t.text(r, "max_error"), t.text(r, "uniform_bound"));
  // Errors at the rounding level (a window wider than its reach, a path
  // row of exact or band attention) say nothing about a bound's slack: a
  // band that cut nothing has a certificate far below rounding.
  if (err > allow && cert > 0 && err / cert > b.worst_ratio) {
    b.worst_ratio = err / cert;
    b.worst_row = r;
  }
  if (err > allow && unif / err < b.least_slack) {
    b.least_slack = unif / err;
    b.slack_row = r;
  }
}

// 1. Certificate, every row against its own.
CheckOutcome certificate_line(const Table& tb, const BoundScan& b) {
  const std::size_t rows = tb.t.size();
  const std::string worst = b.worst_ratio < 0
                                ? std::string("no row with a positive certificate and an error above rounding")
                                : fmt::format("largest max_error/certificate {:.3g} on {}",
                                              b.worst_ratio, tb.row_name(b.worst_row));
  return {"certificate", b.cert_bad ? Verdict::kFail : Verdict::kPass,
          b.cert_bad ? fmt::format("{} of {} rows violate max_error <= certificate (+ rounding "
                                   "allowance), each against its own certificate; first: {}; {}",
                                   b.cert_bad, rows, b.first_cert, worst)
                     : fmt::format("max_error <= certificate (+ rounding allowance) on all {} "
                                   "rows, each against its own certificate (deterministic); {}",
                                   rows, worst)};
}

// 2. Uniform bound: info with its slack, FAIL only as a guard.
CheckOutcome uniform_bound_line(const Table& tb, const BoundScan& b) {
  const std::size_t rows = tb.t.size();
  const std::string slack =
      std::isinf(b.least_slack)
          ? std::string("no row with an error above the rounding allowance and a finite bound")
          : fmt::format("smallest slack uniform_bound/max_error {:.3g} on {}", b.least_slack,
                        tb.row_name(b.slack_row));
  return {"uniform-bound", b.unif_bad ? Verdict::kFail : Verdict::kInfo,
          b.unif_bad
              ? fmt::format("{} of {} rows violate max_error <= uniform_bound (deterministic); "
                            "first: {}",
                            b.unif_bad, rows, b.first_unif)
              : fmt::format("not a test (too loose to fail on a sound sampler; FAIL only as a "
                            "guard): {}; max_error <= uniform_bound on all {} rows",
                            slack, rows)};
}

// 2b. Estimator: sampled rows of the fast estimator against its definition
// (estimator_probe.h), on every row that carries the comparison:
// deterministic, a deviation beyond the rounding allowance is a bug.
std::optional<CheckOutcome> estimator_line(const Table& tb) {
  const CsvTable& t = tb.t;
  if (!t.has_column("estimator_deviation")) return std::nullopt;
  std::size_t probed = 0, bad = 0, worst_row = 0;
  double worst = -1;
  std::string first_bad;
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (t.text(r, "estimator_deviation").empty() || is_path_row(t, r)) continue;
    ++probed;
    const double dev = nonnegative(t, r, "estimator_deviation", false);
    const double allow = nonnegative(t, r, "rounding_allowance", false);
    if (dev > worst) worst = dev, worst_row = r;
    if (!(dev <= allow) && bad++ == 0)
      first_bad = fmt::format("{}: estimator_deviation {} > rounding_allowance {}",
                              tb.row_name(r), t.text(r, "estimator_deviation"),
                              t.text(r, "rounding_allowance"));
  }
  if (probed == 0)
    return CheckOutcome{"estimator", Verdict::kNotApplicable, "no row carries estimator_deviation"};
  const std::string largest =
      fmt::format("largest deviation {:.3g} on {}", worst, tb.row_name(worst_row));
  return CheckOutcome{
      "estimator", bad ? Verdict::kFail : Verdict::kPass,
      bad ? fmt::format("{} of {} rows: the fast estimator differs from its definition beyond "
                        "rounding on sampled rows; first: {}; {}",
                        bad, probed, first_bad, largest)
          : fmt::format("on all {} rows, sampled rows of the fast estimator (both forms) and "
                        "of the mask-mean product equal their definition within the rounding "
                        "allowance (deterministic); {}",
                        probed, largest)};
}

// 2c. Paths (attention_paths.h): each attention path a user calls --
// exact, band, lsh; float32 and float64; one head per call and multi-head;
// at an n off the tiles, with several workers -- against a dense long-double
// evaluation of its definition, every row of every head: deterministic, a
// deviation beyond the row's precision allowance is a bug.
std::string path_name(const CsvTable& t, std::size_t r) {
  return fmt::format("row {} ({} {} {} n={} head={} sigma={})", CsvTable::line_of(r),
                     t.text(r, "estimator"), detail::printable(t.text(r, "precision")),
                     detail::printable(t.text(r, "layout")), t.text(r, "n"), t.text(r, "head"),
                     t.text(r, "sigma"));
}

// Press et al.'s scale of head `head` (0-based) of `heads`, from the closed
// form of MATH §1, computed here rather than with alibi_head_sigmas (the
// library's, which the probe used): with P the largest power of two <= H,
// sigma = 2^(8 (h + 1) / P) for h < P, then 2^(4 (2 (h - P) + 1) / P).
double press_sigma(std::int64_t head, std::int64_t heads) {
  std::int64_t p = 1;
  while (p * 2 <= heads) p *= 2;
  const double exponent = head < p ? 8.0 * static_cast<double>(head + 1) / static_cast<double>(p)
                                   : 4.0 * static_cast<double>(2 * (head - p) + 1) /
                                         static_cast<double>(p);
  return std::exp2(exponent);
}

// The first path row whose sigma is not Press et al.'s for its head, or "".
// H is read from the rows' head column when it holds every head 0 .. H - 1
// (the probe's rows do); a table with some heads only is not checked.
std::string wrong_head_sigma(const CsvTable& t) {
  std::set<std::int64_t> seen;
  for (std::size_t r = 0; r < t.size(); ++r)
    if (is_path_row(t, r)) seen.insert(t.integer(r, "head", 0, 63));
  const auto heads = static_cast<std::int64_t>(seen.size());
  if (seen.empty() || *seen.rbegin() != heads - 1) return "";
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (!is_path_row(t, r)) continue;
    const std::int64_t h = t.integer(r, "head", 0, 63);
    const double want = press_sigma(h, heads), got = t.number(r, "sigma");
    if (!(std::abs(got - want) <= 1e-12 * want))
      return fmt::format("{}: sigma {} is not Press et al.'s {:.17g} for head {} of {}",
                         path_name(t, r), t.text(r, "sigma"), want, h, heads);
  }
  return "";
}

// Independent heads (the paths' layout independent-heads, whose rows carry
// the digest of each head's own draw at sigma = 1): every head's draw is
// distinct from every other head's, and the same in the float32 and the
// float64 probe, which draw it afresh. The first violation, or "".
std::string shared_or_unreproducible_heads(const CsvTable& t) {
  if (!t.has_column("hash_digest")) return "";
  std::map<std::string, std::map<std::string, std::string>> by_precision;  // -> head -> digest
  for (std::size_t r = 0; r < t.size(); ++r)
    if (is_path_row(t, r) && t.text(r, "layout") == "independent-heads")
      by_precision[t.text(r, "precision")][t.text(r, "head")] = t.text(r, "hash_digest");
  std::map<std::string, std::string> first;  // head -> digest, from the first precision
  for (const auto& [precision, heads] : by_precision) {
    std::map<std::string, std::string> owner;  // digest -> head
    for (const auto& [head, digest] : heads) {
      if (const auto it = owner.find(digest); it != owner.end())
        return fmt::format("independent heads {} and {} draw the same hashes ({}, {})",
                           it->second, detail::printable(head), detail::printable(precision),
                           detail::printable(digest));
      owner[digest] = head;
      if (const auto [it, added] = first.emplace(head, digest); !added && it->second != digest)
        return fmt::format("independent head {} draws other hashes when drawn again ({} vs {})",
                           detail::printable(head), detail::printable(it->second),
                           detail::printable(digest));
    }
  }
  return "";
}

std::optional<CheckOutcome> paths_line(const Table& tb) {
  const CsvTable& t = tb.t;
  std::size_t probed = 0, bad = 0, worst_row = 0;
  double worst = -1;
  std::string first_bad;
  std::set<std::string> failing;
  for (std::size_t r = 0; r < t.size(); ++r) {
    if (!is_path_row(t, r)) continue;
    ++probed;
    const double dev = nonnegative(t, r, "estimator_deviation", false);
    const double allow = nonnegative(t, r, "rounding_allowance", false);
    if (allow > 0 && dev / allow > worst) worst = dev / allow, worst_row = r;
    if (dev <= allow) continue;
    failing.insert(fmt::format("{} {} {}", t.text(r, "estimator"), t.text(r, "precision"),
                               t.text(r, "layout")));
    if (bad++ == 0)
      first_bad = fmt::format("{}: estimator_deviation {} > allowance {}", path_name(t, r),
                              t.text(r, "estimator_deviation"), t.text(r, "rounding_allowance"));
  }
  if (probed == 0) return std::nullopt;
  const std::string largest = worst < 0 ? std::string("no row with a positive allowance")
                                        : fmt::format("largest deviation/allowance {:.3g} on {}",
                                                      worst, path_name(t, worst_row));
  if (const std::string sigma = wrong_head_sigma(t); !sigma.empty())
    return CheckOutcome{"paths", Verdict::kFail,
                        fmt::format("the heads' scales are not Press et al.'s (MATH §1, computed "
                                    "independently): {}; {} of {} path rows beyond their "
                                    "allowance; {}",
                                    sigma, bad, probed, largest)};
  if (const std::string heads = shared_or_unreproducible_heads(t); !heads.empty())
    return CheckOutcome{"paths", Verdict::kFail,
                        fmt::format("{}; {} of {} path rows beyond their allowance; {}", heads,
                                    bad, probed, largest)};
  return CheckOutcome{
      "paths", bad ? Verdict::kFail : Verdict::kPass,
      bad ? fmt::format("{} of {} path rows differ from their definition (a dense long-double "
                        "evaluation) beyond their precision's allowance, in {}; first: {}; {}",
                        bad, probed, fmt::join(failing, ", "), first_bad, largest)
          : fmt::format("all {} path rows (exact, band, lsh as a user calls them: float32 and "
                        "float64, one head per call and multi-head, both forms, every row of "
                        "every head) equal their definition, evaluated densely in long double, "
                        "within their precision's allowance (deterministic), every head's scale "
                        "is Press et al.'s (MATH §1), and independent heads draw distinct, "
                        "reproducible hashes; {}",
                        probed, largest)};
}

void bound_lines(const Table& tb, std::vector<CheckOutcome>& out) {
  BoundScan b;
  for (std::size_t r = 0; r < tb.t.size(); ++r) scan_row_bounds(tb, r, b);
  out.push_back(certificate_line(tb, b));
  out.push_back(uniform_bound_line(tb, b));
  if (auto line = estimator_line(tb)) out.push_back(*line);
  if (auto line = paths_line(tb)) out.push_back(*line);
}

// One s of a group: per trial, the tested sampler's errors and those of the
// control sampler's trial (control_sampler.h).
struct ErrorSamples {
  std::vector<double> max_error, rel, projection, control_max_error, control_rel,
      control_projection;
};

// Per group: lsh max_error by trial and s; fixed rows; window rows per s.
struct Group {
  // trial -> s -> (max_error, reference_bound)
  std::map<double, std::map<double, std::pair<double, double>>> lsh_trials;
  std::map<double, std::pair<double, int>> lsh;     // s -> (sum max_error, count)
  std::map<double, std::pair<double, int>> window;  // s -> (sum, count), matched windows
  std::map<double, double> window_width;
  std::vector<std::pair<double, double>> fixed;  // (width, max_error)
  double sigma = 0, n = 0;
  // trial -> s -> (max_error, rel_frobenius_error): what two repeated
  // trials would share.
  TrialColumns columns;
  // trial -> s -> hash_digest, where the table has the column.
  std::map<double, std::map<double, std::string>> digests;
  // s -> the tested and the control trials' errors (error-law lines).
  std::map<double, ErrorSamples> error_law;
};

void add_lsh_row(const Table& tb, std::size_t r, double s, double err, Group& g) {
  const CsvTable& t = tb.t;
  if (!(s >= 1))
    unusable(fmt::format("{}: lsh row with s = '{}'; expected s >= 1", tb.row_name(r),
                         detail::printable(t.text(r, "s"))));
  const double trial = t.number(r, "trial");
  if (!(trial >= 0))
    unusable(fmt::format("{}: lsh row with trial = '{}'; expected a number >= 0", tb.row_name(r),
                         detail::printable(t.text(r, "trial"))));
  auto& by_s = g.lsh_trials[trial];
  if (by_s.count(s))
    unusable(fmt::format("{}: a second lsh row for this (group, s, trial); expected one",
                         tb.row_name(r)));
  by_s[s] = {err, tb.ref_bound(r)};
  g.columns[trial][s] = {err, t.has_column("rel_frobenius_error")
                                  ? t.number(r, "rel_frobenius_error")
                                  : std::numeric_limits<double>::quiet_NaN()};
  if (t.has_column("hash_digest") && !t.text(r, "hash_digest").empty())
    g.digests[trial][s] = t.text(r, "hash_digest");
  g.lsh[s].first += err;
  g.lsh[s].second += 1;
  if (!t.has_column("control_max_error") || t.text(r, "control_max_error").empty()) return;
  ErrorSamples& e = g.error_law[s];
  e.max_error.push_back(err);
  e.rel.push_back(nonnegative(t, r, "rel_frobenius_error", false));
  e.control_max_error.push_back(nonnegative(t, r, "control_max_error", false));
  e.control_rel.push_back(nonnegative(t, r, "control_rel_frobenius_error", false));
  if (!t.has_column("control_scale_projection")) return;  // tables from before the column
  e.projection.push_back(finite(t, r, "scale_projection"));
  e.control_projection.push_back(finite(t, r, "control_scale_projection"));
}

std::map<std::string, Group> group_rows(const Table& tb) {
  const CsvTable& t = tb.t;
  std::map<std::string, Group> groups;
  for (std::size_t r = 0; r < t.size(); ++r) {
    Group& g = groups[tb.group_of(r)];
    g.sigma = t.number(r, "sigma");
    g.n = t.number(r, "n");
    const std::string est = t.text(r, "estimator");
    const double s = t.number(r, "s"), err = t.number(r, "max_error");
    if (est == "lsh") {
      add_lsh_row(tb, r, s, err, g);
    } else if (est == "fixed") {
      g.fixed.push_back({tb.has_width ? t.number(r, "width") : NAN, err});
    } else if (est == "window" && s > 0) {
      g.window[s].first += err;
      g.window[s].second += 1;
      if (tb.has_width) g.window_width[s] += t.number(r, "width");
    }
  }
  return groups;
}

// 5. Cost: an approximation that visits more keys per query than exact
// attention (n per query symmetric, (n + 1) / 2 on average causal) saves
// nothing at that s; say so where the user will see it (WARN, not FAIL:
// the numbers are still right).
void cost_lines(const Table& tb, std::vector<CheckOutcome>& out) {
  const CsvTable& t = tb.t;
  if (!t.has_column("keys_per_query")) return;
  std::map<std::tuple<std::string, std::string, double>, std::pair<double, int>> cost;
  std::map<std::string, double> exact_keys;
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::string est = t.text(r, "estimator");
    if (est != "lsh" && est != "window" && est != "band") continue;
    const double kpq = t.number(r, "keys_per_query");
    if (!std::isfinite(kpq)) continue;
    const std::string g = tb.group_of(r);
    const double n = t.number(r, "n");
    exact_keys[g] = tb.has_form && t.text(r, "form") == "causal" ? (n + 1) / 2 : n;
    const double s = t.number(r, "s");  // empty (NaN) on an explicit-width window: key -1
    auto& acc = cost[{g, est, std::isnan(s) ? -1.0 : s}];
    acc.first += kpq;
    acc.second += 1;
  }
  std::map<std::string, std::vector<std::string>> dearer;  // group -> "lsh s=64: 1890"
  for (const auto& [key, acc] : cost) {
    const auto& [g, est, s] = key;
    const double mean = acc.first / acc.second;
    if (mean > exact_keys.at(g))
      dearer[g].push_back(
          s < 0 ? fmt::format("{}{}: {:.0f}", est, est == "window" ? " of fixed width" : "", mean)
                : fmt::format("{} s={}: {:.0f}", est, s, mean));
  }
  for (const auto& [g, list] : dearer)
    out.push_back({fmt::format("cost[{}]", g), Verdict::kWarning,
                   fmt::format("approximations that visit more keys per query than exact "
                               "attention ({:g}) and so save nothing: {} (mean keys per query "
                               "over trials); use a smaller s or exact attention",
                               exact_keys.at(g), fmt::join(list, ", "))});
}

// A group's per-trial rate slopes (both ends of the reference's error box, as
// for the length test) and the trials left out for a zero or unresolved error.
struct RateSlopes {
  std::vector<double> lo, hi, trials;
  std::size_t zero_trials = 0;
};

RateSlopes rate_slopes(const Group& g) {
  RateSlopes out;
  for (const auto& [trial, by_s] : g.lsh_trials) {
    if (by_s.size() < 2) continue;
    std::vector<double> x, y, rb;
    bool zero = false;
    for (const auto& [s, point] : by_s) {
      zero = zero || point.first <= 0;
      x.push_back(std::log(s));
      y.push_back(point.first);
      rb.push_back(point.second);
    }
    const auto [lo, hi] = zero ? std::pair<double, double>{NAN, NAN} : stats::slope_envelope(x, y, rb);
    if (std::isnan(lo)) {
      ++out.zero_trials;
    } else {
      out.lo.push_back(lo);
      out.hi.push_back(hi);
      out.trials.push_back(trial);
    }
  }
  return out;
}

// Why the slope lines are descriptive (docs/MATH.md §9, "Attention errors
// against an independent sampler").
constexpr const char* kSlopeIsNotATest =
    "descriptive, not a test: nothing proves that a sound estimator's median slope lies in "
    "[-0.6, -0.4] on every input (the ratio estimator has an O(1/s) bias and a fluctuation whose "
    "constants depend on Q, K and V; on peaked or trained heads sound runs leave that band), so "
    "no verdict is drawn from it; the error-law lines are this table's statistical test";

std::string rate_text(const RateInterval& ri, const std::string& what) {
  return fmt::format("{}; {} over {} independent trials: {}", kSlopeIsNotATest, what, ri.trials,
                     rate_numbers(ri));
}

// 3. Rate: per trial, the slope of log max_error vs log s (rate_interval.h).
CheckOutcome rate_line(const std::string& name, const Group& g, double level) {
  const RateSlopes sl = rate_slopes(g);
  std::string pts;
  for (const auto& [s, acc] : g.lsh)
    pts += fmt::format("{}{}:{:.3g}", pts.empty() ? "" : " ", s, acc.first / acc.second);
  const std::string check = fmt::format("rate[{}]", name);
  const double boundaries = rate_expected_boundaries(g.lsh.begin()->first, g.n, g.sigma);
  if (boundaries < kRateMinBoundaries)
    return {check, Verdict::kNotApplicable,
            fmt::format("the smallest s ({}) expects {:.2g} block boundaries in [0, n) "
                        "(s n / (2 sigma)); a trial's error is flat until one appears, so "
                        "the slope needs >= {} (a larger n or s, or a smaller sigma); "
                        "s:mean_error {}",
                        format_value(g.lsh.begin()->first), boundaries, kRateMinBoundaries, pts)};
  if (sl.lo.size() < kMinRateTrials)
    return {check, Verdict::kNotApplicable,
            fmt::format("{} trials with lsh rows at two or more values of s and no zero "
                        "error (needs {}); {} trials with a zero error (or one the "
                        "reference's bound does not resolve)",
                        sl.lo.size(), kMinRateTrials, sl.zero_trials)};
  const RateInterval ri = rate_interval(sl.lo, level);
  return {check, Verdict::kInfo,
          rate_text(ri, "per-trial slope of log max_error vs log s") +
              fmt::format("; s:mean_error {}", pts)};
}

// A group whose rate line decides (enough boundaries and trials).
bool rate_tested(const Group& g, const RateSlopes& sl) {
  return rate_expected_boundaries(g.lsh.begin()->first, g.n, g.sigma) >= kRateMinBoundaries &&
         sl.lo.size() >= kMinRateTrials;
}

// Pooled: per trial, the mean of its slopes over the table's tested groups.
// The groups of one trial share its hashes (prefixes across n, the same
// draws scaled across sigma), so their slopes are dependent and the trial is
// the independent unit: the exact sign test on the trial means (null: their
// median is in the band).
std::optional<CheckOutcome> pooled_rate_line(const std::map<std::string, Group>& groups,
                                             double level) {
  std::map<double, std::pair<std::vector<double>, std::vector<double>>> by_trial;
  std::size_t tested = 0;
  for (const auto& [name, g] : groups) {
    if (g.lsh.empty()) continue;
    const RateSlopes sl = rate_slopes(g);
    if (!rate_tested(g, sl)) continue;
    ++tested;
    for (std::size_t i = 0; i < sl.lo.size(); ++i) {
      by_trial[sl.trials[i]].first.push_back(sl.lo[i]);
      by_trial[sl.trials[i]].second.push_back(sl.hi[i]);
    }
  }
  if (tested < 2) return std::nullopt;
  std::vector<double> lo, hi;
  for (const auto& [trial, slopes] : by_trial) {
    if (slopes.first.size() != tested) continue;
    double a = 0, b = 0;
    for (std::size_t i = 0; i < tested; ++i)
      a += slopes.first[i] / static_cast<double>(tested),
          b += slopes.second[i] / static_cast<double>(tested);
    lo.push_back(a);
    hi.push_back(b);
  }
  const std::string check = fmt::format("rate[pooled over {} groups]", tested);
  if (lo.size() < kMinRateTrials)
    return CheckOutcome{check, Verdict::kNotApplicable,
                        fmt::format("{} trials with a slope in every tested group (needs {})",
                                    lo.size(), kMinRateTrials)};
  const RateInterval ri = rate_interval(lo, level);
  return CheckOutcome{
      check, Verdict::kInfo,
      rate_text(ri, "per-trial mean over groups of the slope of log max_error vs log s")};
}

// Trials that repeat, from the hashes: two trials whose hash_digest agrees at
// every s they share. Sound trials collide only through the 64-bit digest
// (chance <= pairs x s values x 2^-64, charged to the level), whatever the
// errors are: the line holds on every input.
CheckOutcome distinct_digest_line(const std::string& name, const Group& g, double level) {
  std::vector<std::pair<double, const std::map<double, std::string>*>> trials;
  for (const auto& [trial, by_s] : g.digests) trials.push_back({trial, &by_s});
  const double pairs = 0.5 * static_cast<double>(trials.size()) * (trials.size() - 1.0);
  const double chance =
      pairs * static_cast<double>(trials.empty() ? 0 : trials.front().second->size()) * 0x1p-64;
  const std::string check = fmt::format("trials-distinct[{}]", name);
  for (std::size_t a = 0; a < trials.size(); ++a)
    for (std::size_t b = a + 1; b < trials.size(); ++b)
      if (*trials[a].second == *trials[b].second)
        return {check, Verdict::kFail,
                fmt::format("trials {} and {} drew the same hashes (hash_digest equal at every "
                            "s); a sound sampler does so with probability <= {:.2g}",
                            trials[a].first, trials[b].first, chance)};
  return {check, chance <= level ? Verdict::kPass : Verdict::kNotApplicable,
          fmt::format("{} trials, every pair's hashes differ (hash_digest); a sound pair would "
                      "coincide with probability <= {:.2g}, needs <= {:.2g}",
                      trials.size(), chance, level)};
}

// Trials that repeat: identical (max_error, rel_frobenius_error) at every s
// in two trials of a group (rate_interval.h, find_repeated_trials).
CheckOutcome distinct_line(const std::string& name, const Group& g, double level) {
  if (!g.digests.empty()) return distinct_digest_line(name, g, level);
  const RepeatedTrials r = find_repeated_trials(g.columns, g.n, g.sigma, level);
  const Verdict v = !r.decidable  ? Verdict::kNotApplicable
                    : r.identical ? Verdict::kFail
                                  : Verdict::kPass;
  return {fmt::format("trials-distinct[{}]", name), v, r.detail()};
}

double lsh_mean_at_largest_s(const Group& g) {
  const auto& acc = g.lsh.rbegin()->second;
  return acc.first / acc.second;
}

// 4. LSH at the largest s vs fixed blocks of the same mean width.
CheckOutcome beats_fixed_line(const std::string& name, const Group& g) {
  const double s_max = g.lsh.rbegin()->first, lsh_err = lsh_mean_at_largest_s(g);
  const double w_same = std::max(1.0, std::round(2 * g.sigma));
  const std::pair<double, double>* fixed = nullptr;
  for (const auto& f : g.fixed)
    if (f.first == w_same) fixed = &f;
  const std::string check = fmt::format("beats-fixed[{}]", name);
  if (!fixed)
    return {check, Verdict::kNotApplicable,
            fmt::format("no fixed row of width round(2 sigma) = {}", w_same)};
  return {check, Verdict::kInfo,
          fmt::format("lsh mean max_error at s={} is {:.3g}; fixed blocks of "
                      "width {} (= round(2 sigma) = E[delta]): {:.3g}; ratio lsh/fixed "
                      "{:.3g}",
                      s_max, lsh_err, w_same, fixed->second,
                      fixed->second > 0 ? lsh_err / fixed->second : NAN)};
}

// Where the sliding window of equal cost sits (information).
CheckOutcome window_line(const std::string& name, const Group& g) {
  const double s_max = g.lsh.rbegin()->first, lsh_err = lsh_mean_at_largest_s(g);
  const std::string check = fmt::format("window-at-equal-cost[{}]", name);
  if (!g.window.count(s_max))
    return {check, Verdict::kInfo,
            fmt::format("no cost-matched window rows at s={} (run with "
                        "--estimator including window and no --width); its bias error "
                        "alone is e^-(w+1)/sigma with w ~ sigma s = {:.3g}",
                        s_max, std::exp(-(g.sigma * s_max + 0.5) / g.sigma))};
  const auto& wacc = g.window.at(s_max);
  const double werr = wacc.first / wacc.second;
  const double width = g.window_width.count(s_max) ? g.window_width.at(s_max) / wacc.second : NAN;
  std::string verdict;
  if (werr == 0)
    verdict = "the window is exact (error 0 in float64)";
  else if (werr < lsh_err)
    verdict = fmt::format("window better by {:.3g}x", lsh_err / werr);
  else
    verdict = fmt::format("lsh better by {:.3g}x", werr / lsh_err);
  return {check, Verdict::kInfo,
          fmt::format("at the cost of lsh with s={} (mean half-width {:.1f}), the "
                      "sliding window's max_error is {:.3g} vs lsh {:.3g}: {}",
                      s_max, width, werr, lsh_err, verdict)};
}

// 7. Error law (docs/MATH.md §9, "Attention errors against an independent
// sampler"): at one (group, s), the tested trials' errors and the control
// trials' (the same estimator, Q, K, V and reference, hashes from the
// independent control sampler) are i.i.d. under a sound sampler, whatever Q,
// K and V: the exact two-sample rank test (two_sample_rank.h) on
// rel_frobenius_error, max_error and scale_projection (the error along the
// direction a wrong block scale biases it), level / 3 each.
std::string rank_text(const char* what, const stats::RankTest& r, const std::vector<double>& x,
                      const std::vector<double>& y) {
  return fmt::format(
      "{}: median {:.4g} vs control {:.4g}, {} of {} pairs above, {} below, two-sided p {:.3g}",
      what, stats::median_interval(x, 0.5).median, stats::median_interval(y, 0.5).median, r.above, r.m * r.k,
      r.below, r.p);
}

CheckOutcome error_law_line(const std::string& group, double s, const ErrorSamples& e,
                            double level) {
  const std::string check = fmt::format("error-law[{},s={}]", group, format_value(s));
  const bool projected = !e.projection.empty();
  const double each = level / (projected ? 3 : 2);
  const std::size_t needed = stats::rank_test_trials_needed(each);
  if (e.rel.size() < 2 || stats::smallest_rank_p(e.rel.size(), e.control_rel.size()) > each)
    return {check, Verdict::kNotApplicable,
            fmt::format("{} trials: even all errors above the control's leave p = {:.2g} > "
                        "{:.2g}; needs >= {} trials",
                        e.rel.size(), stats::smallest_rank_p(e.rel.size(), e.control_rel.size()), each,
                        needed),
            fmt::format("use --trials >= {}", needed)};
  const stats::RankTest rel = stats::two_sample_rank_test(e.rel, e.control_rel);
  const stats::RankTest mx = stats::two_sample_rank_test(e.max_error, e.control_max_error);
  const std::optional<stats::RankTest> proj =
      projected ? std::optional(stats::two_sample_rank_test(e.projection, e.control_projection))
                : std::nullopt;
  const bool fails = rel.p <= each || mx.p <= each || (proj && proj->p <= each);
  return {check, fails ? Verdict::kFail : Verdict::kPass,
          fmt::format("{} trials against {} of an independent control sampler (same estimator, "
                      "Q, K, V and reference); {}; {}; {}; under a sound sampler the values of "
                      "all trials are i.i.d. whatever the input, so each p-value is exact or "
                      "conservative (ties count for neither side{}): FAIL if one is <= {:.2g}",
                      rel.m, rel.k, rank_text("rel_frobenius_error", rel, e.rel, e.control_rel),
                      rank_text("max_error", mx, e.max_error, e.control_max_error),
                      proj ? rank_text("scale_projection", *proj, e.projection,
                                       e.control_projection)
                           : std::string("no scale_projection column"),
                      rel.exact ? "" : "; Hoeffding's bound for U-statistics", each)};
}

std::size_t error_law_cells(const std::map<std::string, Group>& groups) {
  std::size_t cells = 0;
  for (const auto& [name, g] : groups) cells += g.error_law.size();
  return cells;
}

}  // namespace attention_checks

std::vector<CheckOutcome> check_attention_table(const CsvTable& t, double alpha) {
  using namespace attention_checks;
  if (!(alpha > 0 && alpha < 1))
    throw std::logic_error(fmt::format("check alpha {} is not in (0, 1)", alpha));
  const Table tb(t);
  std::vector<CheckOutcome> out;
  bound_lines(tb, out);
  const std::map<std::string, Group> groups = group_rows(tb);
  cost_lines(tb, out);
  // Bonferroni: the whole alpha goes to the tests (checks 1-2 are
  // deterministic; the rate and length lines are descriptive): three
  // quarters to the error-law lines, one share per (group, s) with control
  // errors, and a quarter to the repeated-trials lines, one share per group
  // with lsh rows. An n/a line keeps its share unspent. The descriptive
  // lines print their sign-test numbers at the level the old split gave.
  std::size_t lsh_groups = 0;
  for (const auto& [name, g] : groups) lsh_groups += !g.lsh.empty();
  const double law_level =
      alpha * 3 / 4 / static_cast<double>(std::max<std::size_t>(1, error_law_cells(groups)));
  const double distinct_level =
      alpha / 4 / static_cast<double>(std::max<std::size_t>(1, lsh_groups));
  const double descriptive_level = alpha / 2 / static_cast<double>(std::max<std::size_t>(1, lsh_groups));
  length_lines(tb, descriptive_level, out);
  for (const auto& [name, g] : groups) {
    if (g.lsh.empty()) continue;
    for (const auto& [s, e] : g.error_law) out.push_back(error_law_line(name, s, e, law_level));
    out.push_back(rate_line(name, g, descriptive_level));
    out.push_back(distinct_line(name, g, distinct_level));
    out.push_back(beats_fixed_line(name, g));
    out.push_back(window_line(name, g));
  }
  if (auto pooled = pooled_rate_line(groups, alpha / 4)) out.push_back(*pooled);
  return out;
}

}  // namespace poslsh

