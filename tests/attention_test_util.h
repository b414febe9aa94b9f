// Dense float64 oracles for the attention tests: n×n matrices, small n only.
#pragma once

#include <fmt/format.h>
#include <poslsh/alibi_kernel.h>
#include <poslsh/attention_options.h>

#include "core/online_softmax.h"
#include <poslsh/rng.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <string>

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

// A parameter as part of a test name (letters, digits and '_' only; stable
// across builds, so `ctest -R` can select it): 0.3 -> "0p3", 1e+04 -> "10000".
inline std::string name_part(double value) {
  std::string out;
  for (const char c : fmt::format("{:g}", value))
    out += c == '.' ? 'p' : c == '-' ? 'm' : c == '+' ? '\0' : c;
  std::erase(out, '\0');
  return out;
}

// "n300_d8_sigma6_s5_causal": the readable name of an attention test case.
inline std::string case_name(Eigen::Index n, Eigen::Index d, double sigma, double qk_scale,
                             std::int64_t s, Form form) {
  std::string name = fmt::format("n{}", n);
  if (d > 0) name += fmt::format("_d{}", d);
  name += "_sigma" + name_part(sigma);
  if (qk_scale != 1) name += "_qk" + name_part(qk_scale);
  if (s > 0) name += fmt::format("_s{}", s);
  return name + (form == Form::kCausal ? "_causal" : "_symmetric");
}

}  // namespace poslsh::testing
