// The positional hash of MATH §2: a random grid on the real line with pitch
// delta ~ Gamma(2, sigma) and shift u ~ Uniform[0, delta). Position i falls in
// bin floor((i - u) / delta); on the integers the bins are contiguous blocks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace poslsh {

struct PositionalHash {
  double pitch;  // delta > 0
  double shift;  // u in [0, delta)

  // Bin of position i. Every other routine derives block boundaries from this
  // one function, so partitions agree with it bit for bit.
  std::int64_t bin(std::int64_t i) const;
};

// Hash k of (seed, trial) at scale sigma: pitch = sigma * G_k with
// G_k = -ln(U1 U2) ~ Gamma(2, 1), shift = pitch * U3, all from stream
// (seed, trial, k). Pitches therefore scale with sigma: different sigma share
// their random numbers, and hash k never depends on how many hashes are drawn.
PositionalHash draw_hash(std::uint64_t seed, std::uint64_t trial, std::uint64_t k, double sigma);

// Hashes k = 0 .. s-1 of (seed, trial).
std::vector<PositionalHash> draw_hashes(std::uint64_t seed, std::uint64_t trial, std::int64_t s,
                                        double sigma);

// The blocks of one hash over [0, n): block b is [starts[b], starts[b+1]),
// starts.front() == 0 and starts.back() == n. Cost O(number of blocks).
std::vector<std::int64_t> block_starts(const PositionalHash& h, std::int64_t n);

// The block of position i (0 <= i < n) under one hash over [0, n): its first
// position and one past its last. O(1) (grid candidate corrected with bin()).
std::int64_t block_begin(const PositionalHash& h, std::int64_t i);
std::int64_t block_end(const PositionalHash& h, std::int64_t i, std::int64_t n);

// Largest block of one hash over [0, n), and over a set of hashes.
std::int64_t largest_block(const PositionalHash& h, std::int64_t n);
std::int64_t largest_block(std::span<const PositionalHash> hashes, std::int64_t n);

// Throws std::invalid_argument unless n >= 1, sigma finite and > 0, s >= 1.
void validate_hash_parameters(std::int64_t n, double sigma, std::int64_t s);

}  // namespace poslsh
