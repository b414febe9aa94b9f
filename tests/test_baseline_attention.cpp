#include <gtest/gtest.h>
#include <poslsh/attention_bounds.h>
#include <poslsh/baseline_attention.h>

#include <cmath>
#include <stdexcept>

#include "attention_test_util.h"

namespace poslsh {
namespace {

using testing::dense_alibi;
using testing::dense_attention;
using testing::gaussian;
using testing::max_abs_diff;

Eigen::MatrixXd dense_fixed_blocks(Eigen::Index n, std::int64_t w, Form form) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (i / w == j / w && (form == Form::kSymmetric || j <= i)) m(i, j) = 1;
  return m;
}

TEST(FixedBlocks, MatchesDenseBlockDiagonalAttention) {
  const Eigen::Index n = 301, d = 5;
  const auto q = gaussian(n, d, 51), k = gaussian(n, d, 52), v = gaussian(n, d, 53);
  for (Form form : {Form::kSymmetric, Form::kCausal})
    for (std::int64_t w : {1, 7, 32, 300, 1000}) {
      const auto got = fixed_block_attention<double>(q, k, v, w, form);
      EXPECT_LT(max_abs_diff(got, dense_attention(q, k, v, dense_fixed_blocks(n, w, form))), 1e-12)
          << "w = " << w;
    }
  EXPECT_THROW(fixed_block_mask(n, 0, Form::kSymmetric), std::invalid_argument);
}

TEST(SlidingWindow, MatchesDenseBandedAlibi) {
  const Eigen::Index n = 400, d = 5;
  const auto q = gaussian(n, d, 54), k = gaussian(n, d, 55), v = gaussian(n, d, 56);
  for (Form form : {Form::kSymmetric, Form::kCausal})
    for (std::int64_t w : {0, 3, 100, 300, 500}) {
      const auto got = sliding_window_attention<double>(q, k, v, 20.0, w, form);
      const auto expect = dense_attention(q, k, v, dense_alibi(n, 20.0, form, w));
      EXPECT_LT(max_abs_diff(got, expect), 1e-12) << "w = " << w;
      const RowMatrix<float> qf = q.cast<float>(), kf = k.cast<float>(), vf = v.cast<float>();
      const auto one = sliding_window_attention<float>(qf, kf, vf, 20.0, w, form, {.threads = 1});
      const auto two = sliding_window_attention<float>(qf, kf, vf, 20.0, w, form, {.threads = 2});
      EXPECT_TRUE((one.array() == two.array()).all());
      EXPECT_LT(max_abs_diff(one.cast<double>(), got), 2e-5);
    }
  EXPECT_THROW(sliding_window_attention<double>(q, k, v, 20.0, -1, Form::kSymmetric),
               std::invalid_argument);
}

TEST(SlidingWindow, WideWindowIsExactAttention) {
  const Eigen::Index n = 200, d = 4;
  const auto q = gaussian(n, d, 57), k = gaussian(n, d, 58), v = gaussian(n, d, 59);
  const auto exact = exact_alibi_attention<double>(q, k, v, 9.0, Form::kSymmetric);
  const auto win = sliding_window_attention<double>(q, k, v, 9.0, n, Form::kSymmetric);
  EXPECT_LT(max_abs_diff(exact, win), 1e-13);
}

TEST(SlidingWindow, CertificateHoldsAndShrinksWithWidth) {
  const Eigen::Index n = 300, d = 6;
  const double sigma = 8.0;
  const auto q = gaussian(n, d, 60), k = gaussian(n, d, 61), v = gaussian(n, d, 62);
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    SoftmaxRowStats st;
    const auto exact = exact_alibi_attention<double>(q, k, v, sigma, form, {}, &st);
    double previous = INFINITY;
    for (std::int64_t w : {2, 8, 32, 64}) {
      const auto win = sliding_window_attention<double>(q, k, v, sigma, w, form);
      const auto b = window_attention_bounds(q, k, v, sigma, w, form, st);
      for (Eigen::Index i = 0; i < n; ++i)
        EXPECT_LE((win.row(i) - exact.row(i)).cwiseAbs().maxCoeff(),
                  b.row_bound[i] + b.rounding_allowance);
      // Bias error of the band: interior rows lose both tails, e^{-(w+1)/σ} each
      // at distance w+1 (causal: one tail).
      const double r = std::exp(-1 / sigma);
      const double tail = std::pow(r, w + 1) / (1 - r);
      EXPECT_NEAR(b.inf_norm_error, (form == Form::kSymmetric ? 2 : 1) * tail, 0.01 * tail);
      EXPECT_LT(b.certificate, previous);
      previous = b.certificate;
    }
  }
}

TEST(FixedBlocks, CertificateHolds) {
  const Eigen::Index n = 256, d = 6;
  const double sigma = 8.0;
  const auto q = gaussian(n, d, 63), k = gaussian(n, d, 64), v = gaussian(n, d, 65);
  SoftmaxRowStats st;
  const auto exact = exact_alibi_attention<double>(q, k, v, sigma, Form::kSymmetric, {}, &st);
  const auto mask = fixed_block_mask(n, 16, Form::kSymmetric);
  const auto fixed = lsh_attention_bounds(q, k, v, sigma, mask, st);
  const auto got = fixed_block_attention<double>(q, k, v, 16, Form::kSymmetric);
  EXPECT_LE(max_abs_diff(got, exact), fixed.certificate + fixed.rounding_allowance);
  EXPECT_GT(max_abs_diff(got, exact), 1e-3);  // fixed blocks are not ALiBi
}

TEST(EqualCost, HalfWidthMatchesKeysPerQuery) {
  EXPECT_EQ(equal_cost_half_width(257.0, Form::kSymmetric), 128);
  EXPECT_EQ(equal_cost_half_width(129.0, Form::kCausal), 128);
  EXPECT_NEAR(window_keys_per_query(100000, 128, Form::kSymmetric), 257.0, 0.2);
}

}  // namespace
}  // namespace poslsh
