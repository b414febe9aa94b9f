// The rate test shared by the convergence, attention and lm checks: an exact,
// distribution-free sign test on independent trial statistics (docs/MATH.md
// §9, "Exact rate test" and "Repeated trials").
//
// Per trial, the least-squares slope of log(error) against log(s). Trials are
// independent; nothing else is assumed about the slopes' law (spectral errors
// are heavy-tailed, docs/MATH.md). A line's null hypothesis is that the trial
// slope's median lies in the band [-0.6, -0.4] around the theorem's -1/2:
// P(slope > -0.4) <= 1/2 and P(slope < -0.6) <= 1/2. Then the number of the m
// trials above -0.4 is a sum of independent indicators each with mean <= 1/2,
// so it is stochastically <= Binomial(m, 1/2), and P(count >= k) <=
// P(Binomial(m, 1/2) >= k) exactly; the same below -0.6. The test FAILs when
// either tail is <= level / 2, which is the same as: the order-statistic
// interval [b_(k), b_(m+1-k)] for the median (coverage >= 1 - level under any
// law) lies outside the band.
//
// A test that cannot fail is not reported as one: when even m trials all on
// one side leave a tail 2^-m > level / 2, the caller reports the numbers as
// info, not PASS, with the number of trials the level needs.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "stats/median_interval.h"

namespace poslsh {

inline constexpr double kRateSlopeLow = -0.6, kRateSlopeHigh = -0.4;
// Fewest independent trials (slopes) for a rate line that a check reports.
inline constexpr std::size_t kMinRateTrials = 3;

// The log-log slope needs block boundaries inside the context at every s it
// fits: hash k of a trial is the same for every s, so a trial's error moves
// only when a hash puts a boundary in [0, n); with fewer than
// kRateMinBoundaries expected among the smallest s's hashes (s_min n / E[pitch],
// E[pitch] = 2 sigma), a trial's curve starts flat whatever the estimator's
// quality (n = 16, sigma = 256, s = 1, 4: slope 0 on a sound sampler) and the
// test would be a false alarm, so the callers report it as n/a.
inline constexpr double kRateMinBoundaries = 2;
inline double rate_expected_boundaries(double s_min, double n, double sigma) {
  return s_min * n / (2 * sigma);
}

struct RateInterval {
  stats::MedianInterval median;
  std::size_t trials = 0, above = 0, below = 0;  // trials above the band, below it
  double p_above = 1, p_below = 1;               // exact tails P(Binomial(m, 1/2) >= above / below)
  double level = 0;
  bool fails = false;             // a tail is <= level / 2: the interval lies outside the band
  bool testable = false;          // 2^-m <= level / 2: the line could fail
  std::size_t trials_needed = 0;  // the fewest trials for a testable line at this level
};

// Throws std::logic_error (a caller's bug) for fewer than two slopes, a NaN slope, or a
// level outside (0, 1).
RateInterval rate_interval(std::span<const double> slopes, double level);

// "median ..., k of m above, ... interval ..." : the numbers of a rate line.
std::string rate_numbers(const RateInterval& ri);
// "" for a testable line, else "; info, not a test: ..." saying why and how
// many trials the level needs.
std::string rate_untestable_note(const RateInterval& ri);
// The remedy of a line that could not decide (check_verdict.h): "" for a
// testable line, else "use --trials >= N".
std::string rate_remedy(const RateInterval& ri);
// The trials a rate line needs to form an interval that could fail at
// `level`: what the sign test needs, and at least kMinRateTrials.
std::size_t rate_trials_needed(double level);

// --- Trials that repeat (the rate lines' companion check) -----------------
// A hash stream that ignores the trial index gives every trial the same
// errors, hence identical trial slopes: a zero-width interval at any level.
// trials-distinct[...] FAILs when two trials of a group have identical error
// columns at every s. A sound sampler produces that only by chance, bounded
// here (docs/MATH.md §9, "Repeated trials"): two independent sound hashes put
// the same block boundaries in [0, n) with probability at most, L = n - 1,
//   c = e^(-2L/sigma) + e^(-L/(2 sigma))/sigma + P(pitch < 1)^2
//       + (2/sigma^2) (2(2 sigma + 1)/L + e^(-L/(4 sigma)) (1 + L/(4 sigma)))
// (no boundary; one, in the same gap; two or more: the first and last pin the
// pitch to a window of width 1/(K - 1)), and the masks of two trials agree
// (or are mirror images) at every one of k nested s values with probability
// at most 2 c^k. That the error columns identify the masks up to mirroring is
// the check's premise.
double boundary_collision_bound(double n, double sigma);

// trial -> s -> the error values a table holds for that row.
using TrialColumns = std::map<double, std::map<double, std::vector<double>>>;

struct RepeatedTrials {
  std::size_t trials = 0, s_values = 0;
  double chance = 1;  // bound on P(some pair of sound trials coincides)
  double level = 0;
  bool decidable = false;                              // chance <= level: a coincidence is evidence
  std::optional<std::pair<double, double>> identical;  // the first pair found
  std::string detail() const;
};

// The trials' columns compared pairwise (NaN equals NaN); chance is
// (pairs) x 2 c^(s values) for the group's (n, sigma).
RepeatedTrials find_repeated_trials(const TrialColumns& columns, double n, double sigma,
                                    double level);

}  // namespace poslsh
