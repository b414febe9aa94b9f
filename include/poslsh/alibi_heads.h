// The standard ALiBi heads (Press, Smith & Lewis 2022, "Train Short, Test
// Long") and how the heads of a multi-head run draw their random numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace poslsh {

// The ALiBi scales sigma_h = 1 / m_h of H heads, in head order, for the slopes
// m_h of the reference get_slopes(H) of Press et al. (their fairseq code):
//  - H a power of two: m_h = 2^(-8h/H), h = 1..H;
//  - otherwise, with P the largest power of two below H: the P slopes of
//    get_slopes(P), then the first H - P of every other slope of
//    get_slopes(2P), i.e. m = 2^(-4(2j+1)/P), j = 0..H-P-1 (each halfway, in
//    the exponent, between two of the first P).
// Head h of a user's Q/K/V (0-based index h - 1) gets sigma_h, so the order is
// the reference's, not sorted. sigma_h is exp2 of the exact exponent (8h/H,
// resp. 4(2j+1)/P): it agrees with 1 / (the reference's start * ratio**i) to a
// few ulp, and for H a power of two it is 2^(8h/H) bit for bit. Throws
// ArgumentError naming heads when H < 1.
std::vector<double> alibi_head_sigmas(int heads);

// The seed of head `head` (0-based, the attention table's `head` column) of a
// multi-head run with --seed `seed`. Shared heads (the default) all use `seed`,
// so hash k of a trial is the same draw rescaled by each head's sigma.
// Independent heads (--independent-heads) use
//   mix64(mix64(seed ^ 0xbb67ae8584caa73b) ^ (head + 0x1f83d9abfb41bd6b))
// (mix64: rng.h), distinct for distinct heads of one seed; every stream of the
// head (hashes, Lanczos starts) is keyed by it in place of `seed`, so a head's
// hashes are those `poslsh sample --seed <that value>` exports, and results do
// not depend on the thread count. (attention's synthetic Q, K, V are the data,
// not a head's stream: every head reads the same ones.)
std::uint64_t independent_head_seed(std::uint64_t seed, std::size_t head);
inline std::uint64_t head_seed(std::uint64_t seed, std::size_t head, bool independent) {
  return independent ? independent_head_seed(seed, head) : seed;
}

}  // namespace poslsh
