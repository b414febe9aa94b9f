// The positional hash of MATH §2: a random grid on the real line with pitch
// delta ~ Gamma(2, sigma) and shift u ~ Uniform[0, delta). Position i falls in
// bin floor((i - u) / delta); on the integers the bins are contiguous blocks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "poslsh/hash_parameters.h"

namespace poslsh {

struct PositionalHash {
  double pitch;  // delta > 0
  double shift;  // u in [0, delta)

  // Bin of position i. Every other routine derives block boundaries from this
  // one function, so partitions agree with it bit for bit.
  std::int64_t bin(std::int64_t i) const;
};

// G ~ Gamma(2, 1) from two uniforms on (0, 1]: G = -(ln U1 + ln U2), clamped
// below at kSmallestGamma2 = 2^-53. The clamp moves exactly one pair: U1 = U2 = 1
// (probability 2^-106 for Stream::uniform_pos), whose G = 0 would make a zero
// pitch and a NaN bin(). Every other pair already gives G >= 2^-53 (the
// smallest, 2^-53, at U1 = 1 - 2^-53, U2 = 1), so the sampled law moves by
// 2^-106 in total variation and is otherwise unchanged (MATH §2).
inline constexpr double kSmallestGamma2 = 0x1p-53;

// Hash k of (seed, trial) at scale sigma: pitch = sigma * G_k with
// G_k = max(-ln U1 - ln U2, kSmallestGamma2) ~ Gamma(2, 1), shift = pitch * U3, all
// from stream (seed, trial, k). Pitches therefore scale with sigma: different
// sigma share their random numbers, and hash k never depends on how many
// hashes are drawn.
PositionalHash draw_hash(std::uint64_t seed, std::uint64_t trial, std::uint64_t k, double sigma);

// Hashes k = 0 .. s-1 of (seed, trial) at hash.sigma(), s = hash.s() (n plays
// no part). Checks nothing: a HashParameters is valid.
std::vector<PositionalHash> draw_hashes(std::uint64_t seed, std::uint64_t trial,
                                        const HashParameters& hash);
// The same from plain numbers: throws ArgumentError naming sigma (finite,
// > 0) or s (>= 1), the check of HashParameters.
std::vector<PositionalHash> draw_hashes(std::uint64_t seed, std::uint64_t trial, std::int64_t s,
                                        double sigma);

// The blocks of one hash over [0, n): block b is [starts[b], starts[b+1]),
// starts.front() == 0 and starts.back() == n. Cost O(number of blocks).
// Throws ArgumentError as validate_hash, or naming n unless n >= 1.
std::vector<std::int64_t> block_starts(const PositionalHash& h, std::int64_t n);

// The block of position i (0 <= i < n) under one hash over [0, n): its first
// position and one past its last. O(1) (grid candidate corrected with bin()).
std::int64_t block_begin(const PositionalHash& h, std::int64_t i);
std::int64_t block_end(const PositionalHash& h, std::int64_t i, std::int64_t n);

// Largest block of one hash over [0, n), and over a set of hashes.
std::int64_t largest_block(const PositionalHash& h, std::int64_t n);
std::int64_t largest_block(std::span<const PositionalHash> hashes, std::int64_t n);

// Throws ArgumentError naming pitch (finite, > 0) or shift (in [0, pitch]):
// the hashes a caller builds itself rather than draws.
void validate_hash(const PositionalHash& h);

// Throws ArgumentError naming n, sigma or s unless n >= 1, sigma finite and
// > 0, s >= 1: the check of HashParameters (hash_parameters.h), for callers
// that keep plain values.
void validate_hash_parameters(std::int64_t n, double sigma, std::int64_t s);

}  // namespace poslsh
