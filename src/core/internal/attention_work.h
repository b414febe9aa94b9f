// How the attention routines cut and run their work, beyond what their
// callers need (the options and kQueryTile, attention_options.h). Not
// installed: the core's kernels use it, and so do two in-tree verifiers, the
// deliberately wrong estimator that plants a bug at key-tile edges
// (experiments/defects/estimator_defect.cpp) and the attention benchmark's reference
// rows (experiments/attention/attention_bench.cpp). One of the core's in-tree headers
// ("internal/NAME.h", docs/ARCHITECTURE.md).
#pragma once

#include <poslsh/attention_options.h>

#include <Eigen/Core>
#include <cstdint>
#include <functional>

namespace poslsh {

// Keys are processed kKeyTile columns at a time against each query tile.
inline constexpr Eigen::Index kKeyTile = 256;

// Runs work(unit, worker) for unit = 0 .. units-1 on `threads` workers (0: all
// hardware threads); worker in [0, workers). Units are handed out dynamically.
// Returns the number of workers used. Exceptions from work are rethrown.
int for_each_unit(std::int64_t units, int threads,
                  const std::function<void(std::int64_t unit, int worker)>& work);

}  // namespace poslsh
