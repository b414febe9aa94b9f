// Least-squares fits used by the rate checks (slope of log error vs log s)
// and the benchmarks (slope of log time vs log n).
#pragma once

#include <vector>

namespace poslsh {

// Slope of the least-squares line through (x[i], y[i]); NaN when x has fewer
// than two distinct values.
double least_squares_slope(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace poslsh
