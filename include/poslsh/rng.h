// Portable random numbers. std:: distributions differ between standard
// libraries, so every draw here is built from 64-bit integer arithmetic that is
// identical on every platform; only the final std::log goes through libm.
//
// Every random object in poslsh lives on its own counter-based stream keyed by
// (seed, trial, index, purpose). That makes results independent of thread
// count and scheduling, and makes samples nested: hash k of a trial is the same
// whether the experiment draws s = 4 or s = 4096 hashes.
#pragma once

#include <cstdint>

namespace poslsh {

// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// What a stream is used for; keeps e.g. hash k and synthetic Q row k apart.
enum class StreamPurpose : std::uint64_t {
  kHash = 1,
  kSyntheticQkv = 2,
  kLanczosStart = 3,
};

// A SplitMix64 sequence whose starting state is a hash of its key.
class Stream {
 public:
  Stream(std::uint64_t seed, std::uint64_t trial, std::uint64_t index, StreamPurpose purpose)
      : state_(key(seed, trial, index, purpose)) {}

  std::uint64_t next_u64() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64(state_);
  }
  // Uniform on [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform on (0, 1]: safe to take the logarithm of.
  double uniform_pos() { return static_cast<double>((next_u64() >> 11) + 1) * 0x1.0p-53; }
  // Standard normal by Box–Muller (both values are not cached: streams stay simple).
  double normal();

  static constexpr std::uint64_t key(std::uint64_t seed, std::uint64_t trial, std::uint64_t index,
                                     StreamPurpose purpose) {
    std::uint64_t h = mix64(seed ^ 0x6a09e667f3bcc909ULL);
    h = mix64(h ^ (trial + 0x3c6ef372fe94f82bULL));
    h = mix64(h ^ (index + 0xa54ff53a5f1d36f1ULL));
    return mix64(h ^ static_cast<std::uint64_t>(purpose));
  }

 private:
  std::uint64_t state_;
};

}  // namespace poslsh
