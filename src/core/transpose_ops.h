// The transposed products of the core operators, private to the core
// (ErrorOperator::perform_transpose_op is the public one), reached by its
// tests as "core/transpose_ops.h".
#pragma once

#include <poslsh/alibi_kernel.h>
#include <poslsh/mask_mean.h>

namespace poslsh::detail {

// Transposed products of the core operators, O(n + number of blocks).
// Symmetric forms are their own transposes. Causal forms are lower triangular,
// so their transposes are the upper-triangular products:
//   (M~_c^T x)_i = (1/s) Σ_k Σ_{j >= i, j in block_k(i)} x_j = (1/s) Σ_k P[end_k(i)] - P[i]
//   (L*_c^T x)_i = Σ_{j >= i} r^(j-i) x_j   (backward recursion)
// with P the prefix sums of x (P[i] = x_0 + ... + x_{i-1}).
void mask_mean_transpose_op(const MaskMean& mask, const double* x_in, double* y_out);
void alibi_kernel_transpose_op(const AlibiKernel& kernel, const double* x_in, double* y_out);

}  // namespace poslsh::detail
