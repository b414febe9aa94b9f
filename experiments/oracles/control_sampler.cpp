#include "experiments/oracles/control_sampler.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace poslsh {

namespace control_sampler_detail {

// splitmix64's finaliser: one generator seed per (seed, trial), far apart.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace control_sampler_detail

std::vector<PositionalHash> control_hashes(std::uint64_t seed, std::uint64_t trial, std::int64_t s,
                                           double sigma) {
  std::mt19937_64 gen(control_sampler_detail::mix(control_sampler_detail::mix(seed ^ 0x636f6e74726f6cULL) + trial));  // "control"
  const double unit = 0x1p-53;
  const auto open_below = [&] { return static_cast<double>((gen() >> 11) + 1) * unit; };  // (0, 1]
  const auto open_above = [&] { return static_cast<double>(gen() >> 11) * unit; };        // [0, 1)
  std::vector<PositionalHash> out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(s, 0)));
  for (std::int64_t k = 0; k < s; ++k) {
    const double u1 = open_below(), u2 = open_below(), u3 = open_above();
    const double pitch = sigma * std::max(-std::log(u1) - std::log(u2), 0x1p-53);
    out.push_back({pitch, pitch * u3});
  }
  return out;
}

}  // namespace poslsh
