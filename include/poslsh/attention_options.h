// What every attention routine shares with its caller: its execution
// options and the query tiles its work is cut into.
#pragma once

#include <Eigen/Core>

namespace poslsh {

// Execution options common to the attention routines.
struct AttentionOptions {
  // Worker threads; 0 means std::thread::hardware_concurrency(). Work is cut
  // into units fixed by n alone, and every query row is computed by the same
  // operation sequence whoever runs it, so results are bit-identical for any
  // thread count.
  int threads = 1;
};

// Queries are processed kQueryTile rows at a time: the unit of work, and
// the tile of BandAttentionResult::tile_half_width (a verifier probing tile
// edges needs it too). How the kernels cut the keys and run the units is
// private to the core.
inline constexpr Eigen::Index kQueryTile = 64;

// Resolves AttentionOptions::threads (0 -> hardware threads, at least 1);
// throws ArgumentError naming threads when it is negative.
int resolve_threads(int threads);

}  // namespace poslsh
