// Right hashes binned wrongly by their consumers (`--plant-defect`; power and
// tests only): what the co-binning probes of the consumers
// (experiments/unbiasedness/consumer_cobinning.h), hash-law's blocks probe and
// the attention oracles must catch.
#pragma once

#include <poslsh/positional_hash.h>
#include <poslsh/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace poslsh {

// Deliberately wrong consumers of right hashes (power and tests only):
//  - kCausalMaskShift: the causal mask is built from the hash's block starts
//    moved one position right (the first block one longer, the last one
//    shorter), the symmetric mask from the right ones; both causal consumers
//    read that mask;
//  - kFloat32Positions: the hash-side runs bin positions rounded to float32,
//    bin = floor((float(i) - shift) / pitch): exact below 2^24, on a grid of
//    2, 4, ... above (unbiasedness.h's anchors near 2^24, 2^31, 2^32);
//  - kOneBasedBins: the blocks the library cuts (block_starts: what MaskMean,
//    lsh_attention and `poslsh sample --blocks` read) number positions from
//    1, bin(i + 1): every start but 0 one position earlier. A shift of the
//    grid keeps the partition law, so no co-binning count sees it; the blocks
//    compared with their definition (hash-law's blocks probe) and the
//    attention oracles built on the definition (estimator, paths) do.
enum class BinningBug { kNone, kCausalMaskShift, kFloat32Positions, kOneBasedBins };
// "sound", "causal-mask-shift", "float32-positions", "one-based-bins".
std::string binning_bug_name(BinningBug bug);

// The block starts of h over [0, n) as the consumers read them in `form`:
// block_starts(h, n), with `bug` planted where it applies.
std::vector<std::int64_t> consumer_block_starts(const PositionalHash& h, std::int64_t n, Form form,
                                                BinningBug bug);

}  // namespace poslsh
