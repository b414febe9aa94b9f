// Positional-LSH attention (MATH §7): T~ = D~^{-1} (A ⊙ M~) V with
// M~ = (1/s) Σ_k M(h_k). Numerator and denominator are sums over hashes of
// block-diagonal attentions without positional bias; they are summed over all
// hashes first and divided once (the ratio estimator). The 1/s factors cancel.
// A running row maximum across hashes keeps the sums in range, exactly as
// online softmax does across key tiles.
//
// Causal form: within a block, query i attends to keys j <= i of the same block
// (the mask M ⊙ T). Cost per hash Σ_blocks b² d, about n · E[delta] · d =
// 2 sigma n d in expectation, as the estimator is defined (lsh_keys_per_query).
//
// Kernel: the s blocks holding query i all contain i, so their union is one
// interval of keys, and Σ_h (block-diagonal attention of hash h) is attention
// over that interval with integer multiplicities (how many hashes put i and j
// in one block). Per 64-row query tile one logit tile covers the rows'
// intervals (OnlineSoftmax::accumulate_weighted): a key shared by several
// hashes is multiplied and exponentiated once, and the matrix products are
// tile-sized instead of block-sized. Same estimator, different summation order.
//
// Averaging per-hash normalised outputs is a different (biased) estimator and
// is deliberately not offered here.
#pragma once

#include <poslsh/exact_attention.h>
#include <poslsh/mask_mean.h>
#include <poslsh/attention_options.h>

#include <span>

namespace poslsh {

// One head: the hashes and the form (symmetric / causal) come from `mask`,
// whose n must equal the rows of q, k, v.
template <typename Scalar>
RowMatrix<Scalar> lsh_attention(const ConstRowMatrixRef<Scalar>& q,
                                const ConstRowMatrixRef<Scalar>& k,
                                const ConstRowMatrixRef<Scalar>& v, const MaskMean& mask,
                                const AttentionOptions& options = {});

// Multi-head: head h uses masks[h] (its own sigma_h) and head h of each stack.
template <typename Scalar>
HeadStack<Scalar> lsh_attention(const HeadStack<Scalar>& q, const HeadStack<Scalar>& k,
                                const HeadStack<Scalar>& v, std::span<const MaskMean> masks,
                                const AttentionOptions& options = {});

// Keys attended per query, summed over hashes: Σ_k Σ_blocks b² / n (causal:
// b (b+1) / 2 per block). The cost measure used to match baselines' cost.
double lsh_keys_per_query(const MaskMean& mask);

}  // namespace poslsh
