// The block starts of a MaskMean regrouped tile by tile along the positions,
// the layout its tiled products (tiled_product.h) stream. Private to the
// core: the installed mask_mean.h only forward-declares it.
#pragma once

#include <cstdint>
#include <vector>

namespace poslsh::detail {

// All hashes' block starts regrouped tile by tile along the positions: segment
// (tile, hash) lists that hash's block starts inside the tile followed by the
// end of the last of those blocks; segments ordered tile-major, s per tile.
struct TiledBlocks {
  // 1024 positions: one vector's tile of D (8 KiB) and the prefix sums it
  // reads stay in L1 (the measured alternatives: docs/benchmarks.md). The
  // tile size does not change results.
  static constexpr std::int64_t kTileSize = 1024;
  std::vector<std::uint32_t> starts;  // positions < n < 2^32
  std::vector<std::int64_t> offsets;  // segment j: [offsets[j], offsets[j+1])
  std::vector<std::int64_t> reach;    // tile t reads the prefix sums P[lo_t .. reach[t]]
  // A power of 2 > reach[t] - lo_t for every tile t: a ring of this many
  // prefix sums holds all those a tile reads.
  std::int64_t ring_size = 1;
};

}  // namespace poslsh::detail
