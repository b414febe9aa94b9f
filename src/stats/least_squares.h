// Least-squares fits used by the rate checks (slope of log error vs log s,
// also when each error is known only within a bound), the benchmarks
// (slope of log time vs log n) and the block-size checks (weighted fits of
// mean b_max to growth models, compared by chi-square).
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

// A weighted least-squares line a + b x and its chi-square, the sum of
// w[i] (y[i] - a - b x[i])^2 (w[i] = 1 / variance of y[i]).
struct WeightedLine {
  double intercept = 0, slope = 0, chi_square = 0;
};

// The weighted least-squares line through (x[i], y[i]); slope and intercept
// NaN when x has fewer than two distinct values of positive weight. An empty
// x fits the constant alone (slope 0, intercept the weighted mean of y).
// Throws std::logic_error when x (if given) and w are not y's size, or the
// weights are not >= 0 with a positive sum: the caller's own arrays.
WeightedLine weighted_least_squares(const std::vector<double>& x, const std::vector<double>& y,
                                    const std::vector<double>& w);

}  // namespace poslsh::stats
