#include "experiments/checks/rate_interval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "stats/binomial.h"
#include "stats/median_interval.h"

namespace poslsh {

RateInterval rate_interval(std::span<const double> slopes, double level) {
  if (slopes.size() < 2) throw std::logic_error("rate_interval: needs at least two slopes");
  if (!(level > 0 && level < 1)) throw std::logic_error("rate_interval: level must be in (0, 1)");
  for (double b : slopes)
    if (std::isnan(b)) throw std::logic_error("rate_interval: a slope is NaN");
  RateInterval r;
  r.trials = slopes.size();
  r.level = level;
  r.median = stats::median_interval(slopes, level);
  for (double b : slopes) {
    r.above += b > kRateSlopeHigh;
    r.below += b < kRateSlopeLow;
  }
  r.p_above = stats::half_binomial_tail(r.trials, r.above);
  r.p_below = stats::half_binomial_tail(r.trials, r.below);
  r.fails = std::min(r.p_above, r.p_below) <= level / 2;
  r.testable = stats::half_binomial_tail(r.trials, r.trials) <= level / 2;
  r.trials_needed = stats::sign_test_trials_needed(level / 2);
  return r;
}

std::string rate_numbers(const RateInterval& ri) {
  return fmt::format(
      "median {:.4f}; {} of {} trials above {} (exact tail P(Binomial({}, 1/2) >= {}) = {:.3g}), "
      "{} below {} (tail {:.3g}); order-statistic interval [{:.4f}, {:.4f}] for the median, "
      "coverage >= 1 - {:.2g} whatever the slopes' law",
      ri.median.median, ri.above, ri.trials, kRateSlopeHigh, ri.trials, ri.above, ri.p_above,
      ri.below, kRateSlopeLow, ri.p_below, ri.median.low, ri.median.high, 1 - ri.median.coverage);
}

std::string rate_untestable_note(const RateInterval& ri) {
  if (ri.testable) return "";
  return fmt::format(
      "; info, not a test: with {} trials even all on one side of the band leave a tail "
      "2^-{} = {:.2g} > level / 2 = {:.2g}; run more trials: needs >= {}",
      ri.trials, ri.trials, std::ldexp(1.0, -static_cast<int>(ri.trials)), ri.level / 2,
      ri.trials_needed);
}

std::string rate_remedy(const RateInterval& ri) {
  return ri.testable ? "" : fmt::format("use --trials >= {}", ri.trials_needed);
}

std::size_t rate_trials_needed(double level) {
  return std::max(kMinRateTrials, stats::sign_test_trials_needed(level / 2));
}

double boundary_collision_bound(double n, double sigma) {
  if (!(n >= 3)) return 1;  // the derivation needs two or more gaps
  const double L = n - 1, x = L / (4 * sigma);
  const double below_one = -std::expm1(-1 / sigma) - std::exp(-1 / sigma) / sigma;  // P(pitch < 1)
  const double none = std::exp(-2 * L / sigma);
  const double one = std::exp(-L / (2 * sigma)) / sigma;
  const double several = below_one * below_one +
                         2 / (sigma * sigma) * (2 * (2 * sigma + 1) / L + std::exp(-x) * (1 + x));
  return std::min(1.0, none + one + several);
}

namespace {

bool same_column(const std::map<double, std::vector<double>>& a,
                 const std::map<double, std::vector<double>>& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if (i->first != j->first || i->second.size() != j->second.size()) return false;
    for (std::size_t k = 0; k < i->second.size(); ++k) {
      const double x = i->second[k], y = j->second[k];
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    }
  }
  return true;
}

}  // namespace

RepeatedTrials find_repeated_trials(const TrialColumns& columns, double n, double sigma,
                                    double level) {
  RepeatedTrials r;
  r.trials = columns.size();
  r.level = level;
  r.s_values = columns.empty() ? 0 : columns.begin()->second.size();
  for (const auto& [trial, by_s] : columns) r.s_values = std::min(r.s_values, by_s.size());
  const double pairs = static_cast<double>(r.trials) * static_cast<double>(r.trials - 1) / 2;
  r.chance = std::min(
      1.0,
      pairs * 2 * std::pow(boundary_collision_bound(n, sigma), static_cast<double>(r.s_values)));
  r.decidable = r.trials >= 2 && r.s_values >= 1 && r.chance <= level;
  for (auto i = columns.begin(); i != columns.end() && !r.identical; ++i)
    for (auto j = std::next(i); j != columns.end(); ++j)
      if (same_column(i->second, j->second)) {
        r.identical = std::pair{i->first, j->first};
        break;
      }
  return r;
}

std::string RepeatedTrials::detail() const {
  const std::string found =
      identical ? fmt::format("trials {} and {} have identical errors at every s", identical->first,
                              identical->second)
                : fmt::format("no two of {} trials have identical errors at every s", trials);
  return fmt::format(
      "{}; a sound sampler gives that by chance with probability <= {:.2g} (pairs x 2 c^{}, c "
      "the chance two hashes put the same block boundaries in [0, n)){}",
      found, chance, s_values,
      decidable ? fmt::format("; FAIL on a coincidence at level {:.2g}", level)
                : fmt::format("; too likely to be evidence at level {:.2g} (n small against "
                              "sigma, or few s)",
                              level));
}

}  // namespace poslsh
