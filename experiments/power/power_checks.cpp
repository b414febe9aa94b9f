// `poslsh check` on a power table: per sampler, the rate at which the checks
// caught it (or raised a false alarm) against the claimed rate, with exact
// Clopper-Pearson bounds.
#include "experiments/power/power.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <map>

#include "stats/binomial.h"

namespace poslsh {

PowerRates power_rates(const CsvTable& t) {
  for (const auto& c : power_columns())
    if (!t.has_column(c)) throw InputError("power table without column " + c);
  // Per (defect, seed): which (family, check) failed.
  std::map<std::pair<std::string, std::string>, std::map<std::pair<std::string, std::string>, bool>>
      per_seed;
  std::vector<std::pair<std::string, std::string>> seeds_order;
  PowerRates out;
  const auto touch = [&](const std::tuple<std::string, std::string, std::string>& key) -> PowerRate& {
    if (!out.rates.contains(key)) out.order.push_back(key);
    return out.rates[key];
  };
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::string failed = t.text(r, "failed");
    if (failed != "0" && failed != "1")
      throw InputError(fmt::format("row {}: failed must be 0 or 1", r + 2));
    const auto ds = std::pair{t.text(r, "defect"), t.text(r, "seed")};
    if (!per_seed.contains(ds)) seeds_order.push_back(ds);
    per_seed[ds][{t.text(r, "family"), t.text(r, "check")}] = failed == "1";
  }
  for (const auto& ds : seeds_order) {
    std::map<std::string, bool> family_any;
    bool any = false;
    for (const auto& [fc, failed] : per_seed[ds]) {
      PowerRate& rate = touch({ds.first, fc.first, fc.second});
      ++rate.seeds;
      rate.failed += failed;
      family_any[fc.first] = family_any[fc.first] || failed;
      any = any || failed;
    }
    for (const auto& [family, failed] : family_any) {
      PowerRate& rate = touch({ds.first, family, "any"});
      ++rate.seeds;
      rate.failed += failed;
    }
    PowerRate& all = touch({ds.first, "all", "any"});
    ++all.seeds;
    all.failed += any;
  }
  return out;
}

namespace power_checks {  // named: the experiments are a unity build


// One-sided Clopper-Pearson bounds on a rate: P(rate < lower) <= 1 - confidence
// and P(rate > upper) <= 1 - confidence for any true rate (exact binomial
// tails, no approximation).
double rate_lower_bound(const PowerRate& r, double one_sided_level) {
  return stats::clopper_pearson_lower(r.failed, r.seeds, one_sided_level);
}
double rate_upper_bound(const PowerRate& r, double one_sided_level) {
  return stats::clopper_pearson_upper(r.failed, r.seeds, one_sided_level);
}

}  // namespace power_checks

using power_checks::rate_lower_bound;
using power_checks::rate_upper_bound;

bool power_shown(const PowerRate& r) { return rate_lower_bound(r, kShownLevel) >= kPowerTarget; }
bool power_refuted(const PowerRate& r, double level) {
  return rate_upper_bound(r, level) < kPowerTarget;
}
bool false_alarm_shown(const PowerRate& r) {
  return rate_upper_bound(r, kShownLevel) <= kCheckFamilyAlpha;
}
bool false_alarm_refuted(const PowerRate& r, double level) {
  return rate_lower_bound(r, level) > kCheckFamilyAlpha;
}

std::int64_t seeds_to_decide_power(double level) {
  std::int64_t n = 1;  // fewest seeds at which no detection at all refutes the target
  while (!power_refuted({n, 0}, level)) ++n;
  return n;
}

std::int64_t seeds_to_decide_false_alarm(double level) {
  std::int64_t n = 1;  // fewest seeds at which an alarm in every seed refutes the rate
  while (!false_alarm_refuted({n, n}, level)) ++n;
  return n;
}

std::int64_t seeds_to_show_power(const PowerRate& r) {
  std::int64_t n = std::max<std::int64_t>(r.seeds, 1);  // every further seed detecting
  while (!power_shown({n, n - (r.seeds - r.failed)})) ++n;
  return n;
}

std::int64_t seeds_to_show_false_alarm(const PowerRate& r) {
  std::int64_t n = std::max<std::int64_t>(r.seeds, 1);  // no further seed alarming
  while (!false_alarm_shown({n, r.failed})) ++n;
  return n;
}

namespace power_checks {

// The check kinds that caught defect d, strongest first (at most three).
std::string caught_by(const PowerRates& pr, const std::string& d) {
  std::vector<std::pair<double, std::string>> by;
  for (const auto& key : pr.order) {
    if (std::get<0>(key) != d || std::get<2>(key) == "any") continue;
    const PowerRate& k = pr.rates.at(key);
    if (k.failed > 0)
      by.push_back({static_cast<double>(k.failed) / static_cast<double>(k.seeds),
                    std::get<1>(key) + "/" + std::get<2>(key)});
  }
  std::stable_sort(by.begin(), by.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::string caught;
  for (std::size_t i = 0; i < by.size() && i < 3; ++i)
    caught += fmt::format("{}{} {:.3f}", i ? ", " : "", by[i].second, by[i].first);
  return caught;
}

// A rate line's verdict: FAIL when the seeds refute the claimed rate at the
// line's level (an exact one-sided Clopper-Pearson bound beyond it: on a claim
// that holds this happens with probability <= level), PASS when they show it
// (the one-sided 95% bound on the right side of it), info in between: the
// seeds are consistent with the claim and do not demonstrate it.
struct RateVerdict {
  Verdict verdict;
  std::string text;
};

RateVerdict claimed_rate_verdict(bool refuted, bool shown, std::int64_t seeds, std::int64_t to_show,
                                 std::int64_t to_refute, const std::string& claim) {
  if (refuted) return {Verdict::kFail, fmt::format("refuted: {}", claim)};
  if (shown) return {Verdict::kPass, fmt::format("shown: {}", claim)};
  return {Verdict::kInfo,
          fmt::format("consistent with, not shown: {} seeds; needs >= {} to show that {}{}", seeds,
                      to_show, claim,
                      seeds < to_refute ? fmt::format(" (and >= {} before any outcome could "
                                                      "refute it)",
                                                      to_refute)
                                        : std::string())};
}

CheckOutcome false_alarm_line(const PowerRate& r, double level, const std::string& caught) {
  const double rate = static_cast<double>(r.failed) / static_cast<double>(r.seeds);
  const std::string claim =
      fmt::format("the family-wise false-alarm rate is <= {:g}", kCheckFamilyAlpha);
  const RateVerdict v =
      claimed_rate_verdict(false_alarm_refuted(r, level), false_alarm_shown(r), r.seeds,
                           seeds_to_show_false_alarm(r), seeds_to_decide_false_alarm(level), claim);
  return {"false-alarm[sound]", v.verdict,
          fmt::format("{}; some check failed in {} of {} seeds (rate {:.4f}; one-sided exact "
                      "Clopper-Pearson: 95% upper bound {:.3g}, FAIL when the {:.3g}-level lower "
                      "bound {:.3g} exceeds {:g}){}",
                      v.text, r.failed, r.seeds, rate, rate_upper_bound(r, kShownLevel), level,
                      rate_lower_bound(r, level), kCheckFamilyAlpha,
                      caught.empty() ? "" : "; failing: " + caught)};
}

CheckOutcome power_line(const std::string& d, const PowerRate& r, double level,
                        const std::string& caught) {
  const double rate = static_cast<double>(r.failed) / static_cast<double>(r.seeds);
  const std::string claim = fmt::format("the detection rate is >= {:g}", kPowerTarget);
  const RateVerdict v =
      claimed_rate_verdict(power_refuted(r, level), power_shown(r), r.seeds, seeds_to_show_power(r),
                           seeds_to_decide_power(level), claim);
  return {fmt::format("power[{}]", d), v.verdict,
          fmt::format("{}; detected in {} of {} seeds (rate {:.4f}; one-sided exact "
                      "Clopper-Pearson: 95% lower bound {:.3g}, FAIL when the {:.3g}-level upper "
                      "bound {:.3g} is below {:g}); by: {}",
                      v.text, r.failed, r.seeds, rate, rate_lower_bound(r, kShownLevel), level,
                      rate_upper_bound(r, level), kPowerTarget,
                      caught.empty() ? std::string("nothing") : caught)};
}

}  // namespace power_checks

using power_checks::caught_by;
using power_checks::false_alarm_line;
using power_checks::power_line;

std::vector<CheckOutcome> check_power_table(const CsvTable& table, double alpha) {
  const PowerRates pr = power_rates(table);
  std::vector<std::string> defects;
  for (const auto& key : pr.order)
    if (std::get<1>(key) == "all") defects.push_back(std::get<0>(key));
  std::vector<CheckOutcome> out;
  const double level = alpha / static_cast<double>(std::max<std::size_t>(defects.size(), 1));
  for (const auto& d : defects) {
    const PowerRate& r = pr.rates.at({d, "all", "any"});
    out.push_back(d == "sound" ? false_alarm_line(r, level, caught_by(pr, d))
                               : power_line(d, r, level, caught_by(pr, d)));
  }
  return out;
}

}  // namespace poslsh
