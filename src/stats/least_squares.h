// Least-squares fits used by the rate checks (slope of log error vs log s,
// also when each error is known only within a bound) and the benchmarks
// (slope of log time vs log n).
#pragma once

#include <utility>
#include <vector>

namespace poslsh::stats {

// Slope of the least-squares line through (x[i], y[i]); NaN when x has fewer
// than two distinct values.
double least_squares_slope(const std::vector<double>& x, const std::vector<double>& y);

// A trial's least-squares slope of ln e vs x when each e is known only to
// within +-rb (the reference's certificate): the smallest and the largest
// slope over that box (each ln e taken at the end its x's side of the mean
// asks for). With rb = 0 both are the plain slope. NaN when some e - rb <= 0
// (the reference cannot resolve that error).
std::pair<double, double> slope_envelope(const std::vector<double>& x, const std::vector<double>& e,
                                         const std::vector<double>& rb);

}  // namespace poslsh::stats
