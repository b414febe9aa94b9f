// The types shared across poslsh's public API: the attention form, row-major
// matrices (the memory layout of C-order numpy and PyTorch tensors) and a
// stack of heads.
#pragma once

#include <Eigen/Dense>

namespace poslsh {

// Symmetric: every pair (i, j); causal: keys j <= i only (L* ⊙ T, T lower
// triangular).
enum class Form { kSymmetric, kCausal };

template <typename Scalar>
using RowMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename Scalar>
using ConstRowMatrixRef = Eigen::Ref<const RowMatrix<Scalar>>;

// Q, K or V for H heads: an (H n) × d row-major matrix whose head h is rows
// [h n, (h+1) n) — the memory layout of a C-order (H, n, d) array. A stack with
// one head is shared by all heads.
template <typename Scalar>
struct HeadStack {
  Eigen::Index heads = 1;
  RowMatrix<Scalar> data;

  Eigen::Index n() const { return heads > 0 ? data.rows() / heads : 0; }
  Eigen::Index d() const { return data.cols(); }
  // Head h; a one-head stack returns its only head for every h.
  auto head(Eigen::Index h) const { return data.middleRows(heads == 1 ? 0 : h * n(), n()); }
  auto head(Eigen::Index h) { return data.middleRows(heads == 1 ? 0 : h * n(), n()); }
};

}  // namespace poslsh
