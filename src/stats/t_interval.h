// The Student-t interval of a mean.
#pragma once

#include <optional>
#include <vector>

namespace poslsh::stats {

struct TInterval {
  double mean = 0;
  std::optional<double> low, high;  // none for fewer than two values
};

// Two-sided, at confidence 1 - alpha.
TInterval t_interval(const std::vector<double>& x, double alpha = 0.05);

}  // namespace poslsh::stats
