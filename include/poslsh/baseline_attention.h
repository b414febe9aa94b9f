// The baselines of MATH §8 that any honest comparison with positional-LSH
// attention needs.
// - Fixed blocks of width w: one deterministic block-diagonal mask, blocks
//   [0, w), [w, 2w), ..., plain attention (no positional bias) within blocks.
//   It is positional-LSH attention with the single hash {pitch w, shift 0}, so
//   it shares that code and its certificate. It does not converge to ALiBi.
// - Sliding window of half-width w: exact ALiBi restricted to |i - j| <= w
//   (banded L*). Its bias error is deterministic, max-norm e^{-(w+1)/sigma};
//   cost O(n (2w + 1) d).
#pragma once

#include <poslsh/exact_attention.h>
#include <poslsh/mask_mean.h>

#include <cstdint>

namespace poslsh {

// The fixed-block mask as a one-hash MaskMean (for attention and certificates).
// Throws ArgumentError unless n >= 1 and width >= 1.
MaskMean fixed_block_mask(std::int64_t n, std::int64_t width, Form form);

template <typename Scalar>
RowMatrix<Scalar> fixed_block_attention(const ConstRowMatrixRef<Scalar>& q,
                                        const ConstRowMatrixRef<Scalar>& k,
                                        const ConstRowMatrixRef<Scalar>& v, std::int64_t width,
                                        Form form, const AttentionOptions& options = {});

// Throws ArgumentError unless half_width >= 0 and sigma is finite > 0.
template <typename Scalar>
RowMatrix<Scalar> sliding_window_attention(const ConstRowMatrixRef<Scalar>& q,
                                           const ConstRowMatrixRef<Scalar>& k,
                                           const ConstRowMatrixRef<Scalar>& v, double sigma,
                                           std::int64_t half_width, Form form,
                                           const AttentionOptions& options = {});

// Keys attended per query by the window, averaged over rows (edges clipped).
double window_keys_per_query(std::int64_t n, std::int64_t half_width, Form form);

// The half-width whose cost (keys per query, interior rows) is closest to
// `keys_per_query`: symmetric 2w + 1, causal w + 1.
std::int64_t equal_cost_half_width(double keys_per_query, Form form);

}  // namespace poslsh
