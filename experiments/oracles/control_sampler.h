// The control arm of the attention checks' error-law lines (docs/MATH.md §9,
// "Attention errors against an independent sampler"): MATH §2's hash law
// implemented a second time, sharing no code with draw_hash (its own
// generator, std::mt19937_64, whose output sequence the C++ standard fixes;
// its own uniforms and Gamma(2) draw), so that a wrong pitch law, shift or
// dependence in the sampler under test changes the law of its attention
// errors and not the control's.
//
// Hash k of (seed, trial) at sigma: pitch = sigma * G_k, G_k = -ln U1 - ln U2
// (U in (0, 1], clamped below at 2^-53 as MATH §2 says), shift = pitch * U3
// (U3 in [0, 1)), the k-th triple of one generator per (seed, trial).
// Pitches therefore scale with sigma and hash k never depends on how many are
// drawn: the structure of draw_hashes (prefixes in s, one draw scaled across
// sigma), so a table's control trials are built as its tested trials are.
#pragma once

#include <poslsh/positional_hash.h>

#include <cstdint>
#include <vector>

namespace poslsh {

std::vector<PositionalHash> control_hashes(std::uint64_t seed, std::uint64_t trial, std::int64_t s,
                                           double sigma);

}  // namespace poslsh
