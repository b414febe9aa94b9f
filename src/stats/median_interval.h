// A distribution-free interval for a median from order statistics (exact
// binomial coverage, whatever the values' law).
#pragma once

#include <span>

namespace poslsh::stats {

struct MedianInterval {
  double median = 0, low = 0, high = 0, coverage = 0;
};

// [v_(k), v_(m+1-k)] with the largest k whose coverage is >= 1 - level
// ([min, max] when none is); coverage is the exact binomial one.
MedianInterval median_interval(std::span<const double> values, double level);

}  // namespace poslsh::stats
