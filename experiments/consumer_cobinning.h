// Co-binning read back from the consumers: the blocks that MaskMean's products
// and lsh_attention actually use, symmetric and causal, rather than the
// blocks the hash defines (cobinning.h tests those). A consumer that builds or
// walks its blocks wrongly (an off-by-one in the causal path, say) passes
// every hash-side test and fails these.
//
// Each hash is probed alone (s = 1) at a small n, with indicator vectors:
//  - mask (M e_a, symmetric): entry a ± t is 1[a and a ± t share a block];
//  - mask-causal ((M ⊙ T) x): forward anchors read column a (entry a + t, row
//    a + t >= a); the end anchor reads row a through x = e_(a - t), one
//    product per offset;
//  - attention, attention-causal (lsh_attention with q = k = 0, so every
//    attended key has weight > 0 and every other key weight 0): value column
//    e_a read at query a + t (forward anchors), value columns e_(a - t) read
//    at query a (the end anchor): > 0 exactly when the query attends the key.
// So each probe is the co-binning indicator of the pair as that consumer
// computes it, and the counts over hashes have the laws of cobinning.h
// (E = exp(-t / sigma)) when the consumer is right.
#pragma once

#include <poslsh/positional_hash.h>
#include <poslsh/types.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/cobinning.h"

namespace poslsh {

enum class CobinConsumer { kMask, kMaskCausal, kAttention, kAttentionCausal };
const std::vector<CobinConsumer>& all_cobin_consumers();
// "mask", "mask-causal", "attention", "attention-causal".
std::string cobin_consumer_name(CobinConsumer consumer);

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

// The n at which consumers are probed for a table at n: min(n, 256) (each
// probe costs O(n) per hash and per offset; anchors and offsets as for any n).
std::int64_t consumer_probe_n(std::int64_t n);

// The co-binning indicators of one hash as `consumer` computes them, at the
// start, middle and end anchors of [0, n) (cobinning.h) and every offset:
// result[region][j] = 1 when the anchor and the position offsets[j] away
// (forward; backward at the end) share a block. Offsets in [1, n / 2 - 1].
std::array<std::vector<bool>, 3> consumer_cobinned(CobinConsumer consumer, const PositionalHash& h,
                                                   std::int64_t n,
                                                   const std::vector<std::int64_t>& offsets,
                                                   BinningBug bug = BinningBug::kNone);

}  // namespace poslsh
