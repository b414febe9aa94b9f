#include "stats/least_squares.h"

#include <cmath>

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

}  // namespace poslsh::stats
