// Dense float64 oracles for the attention tests: n×n matrices, small n only.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>

#include "alibi_kernel.h"
#include "online_softmax.h"
#include "rng.h"

namespace poslsh::testing {

// Seeded Gaussian n×d matrix times `scale`.
inline RowMatrix<double> gaussian(Eigen::Index n, Eigen::Index d, std::uint64_t seed,
                                  double scale = 1.0) {
  Stream rng(seed, 0, 0, StreamPurpose::kSyntheticQkv);
  RowMatrix<double> m(n, d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index c = 0; c < d; ++c) m(i, c) = scale * rng.normal();
  return m;
}

// T = D^{-1} (A ⊙ B) V with A = exp(Q K^T / sqrt(d)), for any nonnegative B;
// rows are shifted by their largest logit where B > 0 (cancels in the ratio).
inline RowMatrix<double> dense_attention(const RowMatrix<double>& q, const RowMatrix<double>& k,
                                         const RowMatrix<double>& v, const Eigen::MatrixXd& bias) {
  const Eigen::MatrixXd logits = (q * k.transpose()) / std::sqrt(double(q.cols()));
  RowMatrix<double> out(q.rows(), v.cols());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    double m = -INFINITY;
    for (Eigen::Index j = 0; j < k.rows(); ++j)
      if (bias(i, j) > 0) m = std::max(m, logits(i, j) + std::log(bias(i, j)));
    Eigen::RowVectorXd w(k.rows());
    for (Eigen::Index j = 0; j < k.rows(); ++j)
      w[j] = bias(i, j) > 0 ? std::exp(logits(i, j) + std::log(bias(i, j)) - m) : 0.0;
    out.row(i) = (w * v) / w.sum();
  }
  return out;
}

// L* ⊙ band: entries with |i - j| > w set to 0 (w < 0: no band).
inline Eigen::MatrixXd dense_alibi(Eigen::Index n, double sigma, Form form, std::int64_t w = -1) {
  Eigen::MatrixXd l = AlibiKernel(n, sigma, form).dense();
  if (w >= 0)
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j)
        if (std::abs(i - j) > w) l(i, j) = 0;
  return l;
}

inline double max_abs_diff(const RowMatrix<double>& a, const RowMatrix<double>& b) {
  return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace poslsh::testing
