// The standard ALiBi heads (Press, Smith & Lewis 2022, "Train Short, Test
// Long").
#pragma once

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
// few ulp, and for H a power of two it is 2^(8h/H) bit for bit, as before
// (earlier versions used 2^(8h/H) for every H, which is the reference only for
// powers of two). Throws UsageError naming --alibi-heads when H < 1.
std::vector<double> alibi_head_sigmas(int heads);

}  // namespace poslsh
