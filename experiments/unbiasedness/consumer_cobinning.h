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

#include "experiments/defects/binning_defect.h"
#include "experiments/unbiasedness/cobinning.h"

namespace poslsh {

enum class CobinConsumer { kMask, kMaskCausal, kAttention, kAttentionCausal };
const std::vector<CobinConsumer>& all_cobin_consumers();
// "mask", "mask-causal", "attention", "attention-causal".
std::string cobin_consumer_name(CobinConsumer consumer);

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
