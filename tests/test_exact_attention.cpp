#include <gtest/gtest.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/exact_attention.h>

#include <cmath>
#include <stdexcept>

#include "attention_test_util.h"
#include "runner/cli_common.h"

namespace poslsh {
namespace {

using testing::dense_alibi;
using testing::dense_attention;
using testing::gaussian;
using testing::max_abs_diff;

struct ExactCase {
  Eigen::Index n, d;
  double sigma, qk_scale;
  Form form;
};

// How GoogleTest (and so ctest's test names) shows a case: its readable name,
// not the struct's bytes (whose padding changed from build to build).
void PrintTo(const ExactCase& c, std::ostream* os) {
  *os << testing::case_name(c.n, c.d, c.sigma, c.qk_scale, 0, c.form);
}

class ExactVsDense : public ::testing::TestWithParam<ExactCase> {};

// n = 1, sizes straddling the 64-row and 256-column tiles, tiny and huge sigma,
// logits large enough that a naive exp would overflow.
INSTANTIATE_TEST_SUITE_P(Shapes, ExactVsDense,
                         ::testing::Values(ExactCase{1, 3, 2.0, 1.0, Form::kSymmetric},
                                           ExactCase{1, 3, 2.0, 1.0, Form::kCausal},
                                           ExactCase{63, 8, 4.0, 1.0, Form::kSymmetric},
                                           ExactCase{65, 8, 4.0, 1.0, Form::kCausal},
                                           ExactCase{300, 16, 16.0, 1.0, Form::kSymmetric},
                                           ExactCase{300, 16, 16.0, 1.0, Form::kCausal},
                                           ExactCase{257, 5, 0.3, 2.0, Form::kSymmetric},
                                           ExactCase{257, 5, 1e4, 1.0, Form::kCausal},
                                           ExactCase{200, 4, 8.0, 40.0, Form::kSymmetric},
                                           ExactCase{200, 4, 8.0, 40.0, Form::kCausal}),
                         [](const auto& info) {
                           const ExactCase& c = info.param;
                           return testing::case_name(c.n, c.d, c.sigma, c.qk_scale, 0, c.form);
                         });

TEST_P(ExactVsDense, Float64MatchesDenseOracle) {
  const ExactCase c = GetParam();
  // Readable, build-independent names ("Shapes/X.Y/n300_d8_sigma6_s5_causal"),
  // not the bytes of the parameter struct, so `ctest -R` can select a case.
  EXPECT_NE(
      std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()).find("_sigma"),
      std::string::npos);
  const auto q = gaussian(c.n, c.d, 1, c.qk_scale), k = gaussian(c.n, c.d, 2, c.qk_scale);
  const auto v = gaussian(c.n, c.d + 1, 3);
  const auto expect = dense_attention(q, k, v, dense_alibi(c.n, c.sigma, c.form));
  const auto got = exact_alibi_attention<double>(q, k, v, c.sigma, c.form);
  ASSERT_TRUE(got.allFinite());
  EXPECT_LT(max_abs_diff(got, expect), 1e-12);
}

TEST_P(ExactVsDense, Float32AgreesWithFloat64) {
  const ExactCase c = GetParam();
  const auto q = gaussian(c.n, c.d, 1, c.qk_scale), k = gaussian(c.n, c.d, 2, c.qk_scale);
  const auto v = gaussian(c.n, c.d + 1, 3);
  const RowMatrix<float> qf = q.cast<float>(), kf = k.cast<float>(), vf = v.cast<float>();
  const auto ref = exact_alibi_attention<double>(q, k, v, c.sigma, c.form);
  const auto got = exact_alibi_attention<float>(qf, kf, vf, c.sigma, c.form);
  // Logits of size up to ~40 c.qk_scale carry float rounding eps * |logit|.
  const double tol = 2e-5 * std::max(1.0, c.qk_scale * c.qk_scale);
  EXPECT_LT(max_abs_diff(got.cast<double>(), ref), tol);
}

TEST(ExactAttention, RowStatisticsMatchDenseOracle) {
  const Eigen::Index n = 150, d = 6;
  const double sigma = 5.0;
  const auto q = gaussian(n, d, 4), k = gaussian(n, d, 5), v = gaussian(n, d, 6);
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    SoftmaxRowStats st;
    exact_alibi_attention<double>(q, k, v, sigma, form, {}, &st);
    const Eigen::MatrixXd logits = q * k.transpose() / std::sqrt(double(d));
    double beta = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      double m = -INFINITY;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (form == Form::kCausal && j > i) continue;
        m = std::max(m, logits(i, j) - std::abs(double(i - j)) / sigma);
        beta = std::max(beta, std::abs(logits(i, j)));
      }
      double sum = 0;
      for (Eigen::Index j = 0; j < n; ++j)
        if (form == Form::kSymmetric || j <= i)
          sum += std::exp(logits(i, j) - std::abs(double(i - j)) / sigma - m);
      EXPECT_NEAR(st.row_max[i], m, 1e-12);
      EXPECT_NEAR(st.row_sum[i], sum, 1e-12 * sum);
    }
    EXPECT_NEAR(st.max_abs_logit, beta, 1e-12);
  }
}

TEST(ExactAttention, BitIdenticalForAnyThreadCount) {
  const Eigen::Index n = 700, d = 16;
  const RowMatrix<float> q = gaussian(n, d, 7).cast<float>(), k = gaussian(n, d, 8).cast<float>(),
                         v = gaussian(n, d, 9).cast<float>();
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const auto one = exact_alibi_attention<float>(q, k, v, 12.0, form, {.threads = 1});
    for (int t : {2, 3, 5}) {
      const auto many = exact_alibi_attention<float>(q, k, v, 12.0, form, {.threads = t});
      EXPECT_TRUE((one.array() == many.array()).all()) << "threads = " << t;
    }
  }
}

TEST(ExactAttention, CausalRowsIgnoreTheFuture) {
  const Eigen::Index n = 300, d = 8, cut = 130;
  const auto q = gaussian(n, d, 10), k = gaussian(n, d, 11), v = gaussian(n, d, 12);
  auto k2 = k, v2 = v;
  k2.bottomRows(n - cut - 1) = gaussian(n - cut - 1, d, 13, 5.0);
  v2.bottomRows(n - cut - 1) = gaussian(n - cut - 1, d, 14, 5.0);
  const auto a = exact_alibi_attention<double>(q, k, v, 6.0, Form::kCausal);
  const auto b = exact_alibi_attention<double>(q, k2, v2, 6.0, Form::kCausal);
  // Rows 0..cut see only keys 0..cut: identical, bit for bit.
  EXPECT_TRUE((a.topRows(cut + 1).array() == b.topRows(cut + 1).array()).all());
  // The symmetric form does see the change (the test can fail).
  const auto c = exact_alibi_attention<double>(q, k, v, 6.0, Form::kSymmetric);
  const auto e = exact_alibi_attention<double>(q, k2, v2, 6.0, Form::kSymmetric);
  EXPECT_GT(max_abs_diff(c.topRows(cut + 1), e.topRows(cut + 1)), 1e-6);
}

TEST(ExactAttention, MultiHeadUsesAlibiSlopesPerHead) {
  const auto sigmas = alibi_head_sigmas(4);
  ASSERT_EQ(sigmas.size(), 4u);
  EXPECT_DOUBLE_EQ(sigmas[0], 4.0);    // 2^(8/4)
  EXPECT_DOUBLE_EQ(sigmas[3], 256.0);  // 2^8
  const Eigen::Index n = 90, d = 4, heads = 4;
  HeadStack<double> q{heads, gaussian(heads * n, d, 15)}, k{heads, gaussian(heads * n, d, 16)};
  HeadStack<double> v{1, gaussian(n, d, 17)};  // shared across heads
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const auto out = exact_alibi_attention<double>(q, k, v, sigmas, form);
    ASSERT_EQ(out.heads, heads);
    for (Eigen::Index h = 0; h < heads; ++h) {
      const RowMatrix<double> qh = q.head(h), kh = k.head(h), vh = v.head(h);
      const auto expect = dense_attention(qh, kh, vh, dense_alibi(n, sigmas[h], form));
      EXPECT_LT(max_abs_diff(out.head(h), expect), 1e-12) << "head " << h;
    }
  }
  HeadStack<double> bad{3, gaussian(3 * n, d, 18)};
  EXPECT_THROW(exact_alibi_attention<double>(bad, k, v, sigmas, Form::kSymmetric),
               std::invalid_argument);
}

TEST(ExactAttention, RejectsBadArguments) {
  const auto q = gaussian(10, 4, 1), k = gaussian(10, 4, 2), v = gaussian(10, 4, 3);
  const auto k_short = gaussian(9, 4, 2), k_wide = gaussian(10, 5, 2);
  EXPECT_THROW(exact_alibi_attention<double>(q, k_short, v, 2.0, Form::kSymmetric),
               std::invalid_argument);
  EXPECT_THROW(exact_alibi_attention<double>(q, k_wide, v, 2.0, Form::kSymmetric),
               std::invalid_argument);
  EXPECT_THROW(exact_alibi_attention<double>(q, k, v, 0.0, Form::kSymmetric),
               std::invalid_argument);
  EXPECT_THROW(exact_alibi_attention<double>(q, k, v, NAN, Form::kSymmetric),
               std::invalid_argument);
  EXPECT_THROW(exact_alibi_attention<double>(q, k, v, 2.0, Form::kSymmetric, {.threads = -1}),
               std::invalid_argument);
}

}  // namespace
}  // namespace poslsh
