// The calibrated rate test shared by the convergence and attention checks.
//
// Per trial, the least-squares slope of log(error) against log(s); trials are
// independent, so the trial slopes are i.i.d. Assuming they are normal, the
// Student-t interval mean +- t_{1 - level/2, m - 1} sd / sqrt(m) covers their
// expectation with probability 1 - level. The test FAILs only when the whole
// interval lies outside the accepted band [-0.6, -0.4] around the theorem's
// -1/2, so its false-alarm rate is <= level whenever the expected trial slope
// is in the band.
//
// A test that cannot fail is not reported as one: when the interval's
// half-width exceeds 0.4, even an error that stops decreasing with s (slope
// 0, what a biased estimator shows) could not fail it, so the caller reports
// the numbers as info, not PASS.
#pragma once

#include <cstddef>
#include <span>

namespace poslsh {

inline constexpr double kRateSlopeLow = -0.6, kRateSlopeHigh = -0.4;
inline constexpr double kRateMaxHalfWidth = 0.4;
// Fewest independent trials (slopes) for a rate interval that a check reports.
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
  double mean = 0, low = 0, high = 0;
  bool fails = false;     // the interval lies outside [kRateSlopeLow, kRateSlopeHigh]
  bool testable = false;  // half-width <= kRateMaxHalfWidth
};

// Throws std::invalid_argument for fewer than two slopes or level outside (0, 1).
RateInterval rate_interval(std::span<const double> slopes, double level);

}  // namespace poslsh
