// What every attention routine shares with its caller: its execution
// options, the tiles its work is cut into (a verifier probing tile edges
// needs them), and the worker pool that runs the tiles.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>

namespace poslsh {

// Execution options common to the attention routines.
struct AttentionOptions {
  // Worker threads; 0 means std::thread::hardware_concurrency(). Work is cut
  // into units fixed by n alone, and every query row is computed by the same
  // operation sequence whoever runs it, so results are bit-identical for any
  // thread count.
  int threads = 1;
};

// Tile sizes. Queries are processed kQueryTile rows at a time against keys
// kKeyTile columns at a time.
inline constexpr Eigen::Index kQueryTile = 64;
inline constexpr Eigen::Index kKeyTile = 256;

// Runs work(unit, worker) for unit = 0 .. units-1 on `threads` workers (0: all
// hardware threads); worker in [0, workers). Units are handed out dynamically.
// Returns the number of workers used. Exceptions from work are rethrown.
int for_each_unit(std::int64_t units, int threads,
                  const std::function<void(std::int64_t unit, int worker)>& work);

// Resolves AttentionOptions::threads (0 -> hardware threads, at least 1);
// throws ArgumentError naming threads when it is negative.
int resolve_threads(int threads);

}  // namespace poslsh
