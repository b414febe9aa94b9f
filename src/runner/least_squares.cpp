#include "runner/least_squares.h"

#include <cmath>

namespace poslsh {

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

}  // namespace poslsh
