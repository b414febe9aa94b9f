#include "stats/least_squares.h"

#include <cmath>
#include <stdexcept>

namespace poslsh::stats {

double least_squares_slope(const std::vector<double>& x, const std::vector<double>& y) {
  // Centred sums: the uncentred formula cancels badly for x = log n at large n.
  const double m = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / m;
    my += y[i] / m;
  }
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : std::nan("");
}

std::pair<double, double> slope_envelope(const std::vector<double>& x, const std::vector<double>& e,
                                         const std::vector<double>& rb) {
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  std::vector<double> lo(x.size()), hi(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!(e[k] - rb[k] > 0)) return {NAN, NAN};
    const double down = std::log(e[k] - rb[k]), up = std::log(e[k] + rb[k]);
    lo[k] = rb[k] == 0 ? std::log(e[k]) : x[k] > mean ? down : up;
    hi[k] = rb[k] == 0 ? std::log(e[k]) : x[k] > mean ? up : down;
  }
  return {least_squares_slope(x, lo), least_squares_slope(x, hi)};
}

WeightedLine weighted_least_squares(const std::vector<double>& x, const std::vector<double>& y,
                                    const std::vector<double>& w) {
  if ((!x.empty() && x.size() != y.size()) || w.size() != y.size())
    throw std::logic_error("weighted_least_squares: x, y and w differ in size");
  double sw = 0;
  for (double wi : w) {
    if (!(wi >= 0) || !std::isfinite(wi))
      throw std::logic_error("weighted_least_squares: a weight is not a finite number >= 0");
    sw += wi;
  }
  if (!(sw > 0)) throw std::logic_error("weighted_least_squares: the weights sum to 0");
  // Centred sums, as least_squares_slope: x = sigma ln ln n sits far from 0.
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    mx += w[i] * (x.empty() ? 0.0 : x[i]);
    my += w[i] * y[i];
  }
  mx /= sw, my /= sw;
  WeightedLine line{my, 0.0, 0.0};
  if (!x.empty()) {
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      sxy += w[i] * (x[i] - mx) * (y[i] - my);
      sxx += w[i] * (x[i] - mx) * (x[i] - mx);
    }
    line.slope = sxx > 0 ? sxy / sxx : std::nan("");
    line.intercept = my - line.slope * mx;
  }
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double r = (y[i] - my) - line.slope * ((x.empty() ? 0.0 : x[i]) - mx);
    line.chi_square += w[i] * r * r;
  }
  return line;
}

}  // namespace poslsh::stats
