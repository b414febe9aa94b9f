#include <poslsh/rng.h>

#include <cmath>
#include <numbers>

namespace poslsh {

double Stream::normal() {
  const double u1 = uniform_pos();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace poslsh
