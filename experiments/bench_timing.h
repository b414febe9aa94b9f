// Timing helpers shared by the `poslsh bench` drivers: wall clock, best of
// repeats, and the process's peak resident set size.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

namespace poslsh {

// Where a bench prints its human-readable table: standard output, or standard
// error when its CSV goes to standard output (--out -), so a pipe gets the CSV alone.
inline std::FILE* bench_report(const std::string& out) { return out == "-" ? stderr : stdout; }

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best of `repeats` wall times of f, in seconds. Runs longer than
// `stop_after` seconds are not repeated (their relative noise is small).
template <class F>
double best_time(std::int64_t repeats, F&& f,
                 double stop_after = std::numeric_limits<double>::infinity()) {
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t r = 0; r < repeats; ++r) {
    const double t0 = now_seconds();
    f();
    best = std::min(best, now_seconds() - t0);
    if (best > stop_after) break;
  }
  return best;
}

// Peak resident set size of the process so far, MiB.
inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace poslsh
