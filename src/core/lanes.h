// Interleaved lanes: several vectors stored entry by entry (entry i of vector
// l at [i * lanes + l]), so one pass over an operator's structure serves all
// of them. dispatch_lanes turns the run-time lane count into a compile-time
// constant, so that the per-entry loop over lanes is a fixed-width SIMD
// operation.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>

namespace poslsh {

inline constexpr int kMaxLanes = 8;

// Calls f(std::integral_constant<int, L>{}) for L = lanes; throws
// std::logic_error (naming `who`) unless 1 <= lanes <= kMaxLanes.
template <class F>
decltype(auto) dispatch_lanes(int lanes, const char* who, F&& f) {
  switch (lanes) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 5:
      return f(std::integral_constant<int, 5>{});
    case 6:
      return f(std::integral_constant<int, 6>{});
    case 7:
      return f(std::integral_constant<int, 7>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    default:
      throw std::logic_error(std::string(who) + ": lanes must be in [1, 8], got " +
                             std::to_string(lanes));
  }
}

}  // namespace poslsh
