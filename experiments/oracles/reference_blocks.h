// Blocks of a hash from the definition alone, in code that shares nothing
// with the library's binning (PositionalHash::bin, block_begin, block_end,
// block_starts in src/core/positional_hash.cpp): position i lies in bin
// floor((i - shift) / pitch), evaluated as MATH §2 states it (IEEE double,
// each operation correctly rounded, so the bin is a non-decreasing function
// of i), and the block of i is the run of positions of [0, n) that share its
// bin. The oracles of the estimator, paths and co-binning lines read these,
// so a binning defect in the library that keeps the partition law (block ids
// from 1-based positions, an off-by-one at a block end) moves the
// implementation and not its reference, and the paths table's block rows
// compare the library's blocks (what MaskMean, lsh_attention and `poslsh
// sample --blocks` read) with them.
#pragma once

#include <poslsh/positional_hash.h>

#include <cstdint>
#include <vector>

namespace poslsh {

// floor((i - shift) / pitch) as a double: no cast, so a bin beyond the
// int64 range (a pitch below 2^-13 at i = 2^50) is still exact and distinct.
double reference_bin(const PositionalHash& h, std::int64_t i);

// The first position of i's block, and one past its last in [0, n). Found
// from a long-double estimate of the bin's edge, then moved position by
// position until the definition holds: the estimate only sets the cost.
std::int64_t reference_block_begin(const PositionalHash& h, std::int64_t i);
std::int64_t reference_block_end(const PositionalHash& h, std::int64_t i, std::int64_t n);

// The starts of the blocks of [0, n), then n: block_starts' format.
std::vector<std::int64_t> reference_block_starts(const PositionalHash& h, std::int64_t n);

}  // namespace poslsh
