#include <gtest/gtest.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/attention_bounds.h>
#include <poslsh/lsh_attention.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "attention_test_util.h"
#include "error_kinds.h"
#include "internal/attention_work.h"
#include "runner/cli_common.h"

namespace poslsh {
namespace {

using testing::dense_alibi;
using testing::dense_attention;
using testing::gaussian;
using testing::max_abs_diff;

struct LshCase {
  Eigen::Index n, d;
  double sigma;
  std::int64_t s;
  Form form;
};

// Shown by its readable name, not its bytes (see test_exact_attention.cpp).
void PrintTo(const LshCase& c, std::ostream* os) {
  *os << testing::case_name(c.n, c.d, c.sigma, 1, c.s, c.form);
}

class LshVsDense : public ::testing::TestWithParam<LshCase> {};

// Blocks smaller than a tile, and (sigma = 200) blocks longer than the 64-row
// query tile, the 256-column key tile and the 256-row work chunk.
INSTANTIATE_TEST_SUITE_P(Shapes, LshVsDense,
                         ::testing::Values(LshCase{1, 3, 2.0, 3, Form::kSymmetric},
                                           LshCase{300, 8, 6.0, 1, Form::kSymmetric},
                                           LshCase{300, 8, 6.0, 5, Form::kCausal},
                                           LshCase{513, 4, 16.0, 16, Form::kSymmetric},
                                           LshCase{513, 4, 16.0, 16, Form::kCausal},
                                           LshCase{700, 4, 200.0, 3, Form::kSymmetric},
                                           LshCase{700, 4, 200.0, 3, Form::kCausal}),
                         [](const auto& info) {
                           const LshCase& c = info.param;
                           return testing::case_name(c.n, c.d, c.sigma, 1, c.s, c.form);
                         });

TEST_P(LshVsDense, Float64MatchesDenseRatioEstimator) {
  const LshCase c = GetParam();
  // Readable, build-independent names ("Shapes/X.Y/n300_d8_sigma6_s5_causal"),
  // not the bytes of the parameter struct, so `ctest -R` can select a case.
  EXPECT_NE(
      std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()).find("_sigma"),
      std::string::npos);
  const auto q = gaussian(c.n, c.d, 21), k = gaussian(c.n, c.d, 22), v = gaussian(c.n, c.d, 23);
  const auto hashes = draw_hashes(5, 1, c.s, c.sigma);
  const MaskMean mask(c.n, hashes, c.form);
  const auto expect = dense_attention(q, k, v, mask.dense());
  const auto got = lsh_attention<double>(q, k, v, mask);
  ASSERT_TRUE(got.allFinite());
  EXPECT_LT(max_abs_diff(got, expect), 1e-12);
}

TEST_P(LshVsDense, Float32AgreesWithFloat64AndThreadsDoNotMatter) {
  const LshCase c = GetParam();
  const auto q = gaussian(c.n, c.d, 21), k = gaussian(c.n, c.d, 22), v = gaussian(c.n, c.d, 23);
  const MaskMean mask(c.n, draw_hashes(5, 1, c.s, c.sigma), c.form);
  const RowMatrix<float> qf = q.cast<float>(), kf = k.cast<float>(), vf = v.cast<float>();
  const auto ref = lsh_attention<double>(q, k, v, mask);
  const auto one = lsh_attention<float>(qf, kf, vf, mask, {.threads = 1});
  EXPECT_LT(max_abs_diff(one.cast<double>(), ref), 2e-5);
  const auto three = lsh_attention<float>(qf, kf, vf, mask, {.threads = 3});
  EXPECT_TRUE((one.array() == three.array()).all());
}

TEST(LshAttention, MultiHeadUsesEachHeadsMask) {
  const Eigen::Index n = 120, d = 4, heads = 2;
  const auto sigmas = alibi_head_sigmas(heads);
  HeadStack<double> q{1, gaussian(n, d, 24)}, k{heads, gaussian(heads * n, d, 25)},
      v{heads, gaussian(heads * n, d, 26)};
  std::vector<MaskMean> masks;
  for (double sg : sigmas) masks.emplace_back(n, draw_hashes(9, 0, 4, sg), Form::kCausal);
  const auto out = lsh_attention<double>(q, k, v, masks);
  for (Eigen::Index h = 0; h < heads; ++h) {
    const RowMatrix<double> qh = q.head(h), kh = k.head(h), vh = v.head(h);
    EXPECT_LT(max_abs_diff(out.head(h), dense_attention(qh, kh, vh, masks[h].dense())), 1e-12);
  }
  EXPECT_THROW(lsh_attention<double>(q, k, v, std::span<const MaskMean>(masks.data(), 1)),
               std::invalid_argument);
}

TEST(LshAttention, RejectsMaskOfOtherLength) {
  const auto q = gaussian(50, 4, 1);
  const MaskMean mask(49, draw_hashes(1, 0, 2, 3.0));
  testing::expect_broken_invariant([&] { lsh_attention<double>(q, q, q, mask); });
}

TEST(LshAttention, KeysPerQueryCountsBlockPairs) {
  const MaskMean mask(10, std::vector<PositionalHash>{{4.0, 0.0}, {10.0, 0.0}});
  // Blocks {4, 4, 2} and {10}: (16 + 16 + 4 + 100) / 10.
  EXPECT_DOUBLE_EQ(lsh_keys_per_query(mask), 13.6);
}

// The kernel under positional-LSH attention: per-row key ranges and integer
// multiplicities in one logit tile, fed in two key tiles (so the running
// maximum is rescaled), against the dense ratio with those multiplicities as
// the bias. A row with an empty range must come out as 0.
TEST(OnlineSoftmaxWeighted, MatchesDenseAttentionWithMultiplicities) {
  const Eigen::Index rows = 40, keys = 120, d = 8, ka = 10, split = 60, kb = 110;
  const auto q = gaussian(rows, d, 31, 1.5), k = gaussian(keys, d, 32, 1.5),
             v = gaussian(keys, d, 33);
  RowMatrix<double> mult(rows, keys);
  mult.setZero();
  Eigen::MatrixXd bias = Eigen::MatrixXd::Zero(rows, keys);
  std::vector<Eigen::Index> lo(rows), hi(rows);
  for (Eigen::Index r = 0; r < rows; ++r) {
    lo[r] = ka + (r * 7) % 50;
    hi[r] = r == 5 ? lo[r] : std::min<Eigen::Index>(kb, lo[r] + 5 + (r * 13) % 40);
    for (Eigen::Index j = lo[r]; j < hi[r]; ++j) bias(r, j) = mult(r, j) = 1 + (r + j) % 3;
  }
  detail::OnlineSoftmax<double> st(rows, d, d);
  st.reset(0);
  for (const auto& [a, b] : {std::pair{ka, split}, std::pair{split, kb}}) {
    std::vector<Eigen::Index> rl(rows), rh(rows);
    for (Eigen::Index r = 0; r < rows; ++r) {
      rl[r] = std::max(lo[r], a) - a;
      rh[r] = std::max(std::max(lo[r], a), std::min(hi[r], b)) - a;
    }
    st.accumulate_weighted(q, k, v, 0, rows, a, b, mult.row(0).data() + a, mult.cols(), rl.data(),
                           rh.data());
  }
  RowMatrix<double> got(rows, d);
  st.write_output(got, rows);
  for (Eigen::Index r = 0; r < rows; ++r) {
    if (r == 5) {
      EXPECT_EQ(got.row(r).cwiseAbs().maxCoeff(), 0.0);
      continue;
    }
    const Eigen::MatrixXd one = bias.row(r);
    const RowMatrix<double> expect = dense_attention(q.middleRows(r, 1), k, v, one);
    EXPECT_LT(max_abs_diff(got.middleRows(r, 1), expect), 1e-12) << "row " << r;
  }
  testing::expect_broken_invariant([&] {
    st.accumulate_weighted(q, k, v, 0, rows, 0, kKeyTile + 1, mult.data(), mult.cols(), lo.data(),
                           hi.data());
  });
}

// Consistency of the ratio estimator, and a negative control. With B = 32
// independent batches (trials) of s = 512 hashes, the batch errors
// e_b = T~_b[i,c] - T*[i,c] have mean 0 up to the ratio bias O(1/s), which is
// ~0.04 standard errors of one batch and ~0.25 standard errors of the mean of
// 32. A t statistic over the batches is compared with 4.5: two-sided t(31)
// tail 1.0e-4 per entry, 8 entries, so a correct implementation fails with
// probability < 1e-3 (plus the small shift from the O(1/s) bias). The negative
// control averages per-hash normalised outputs, a different estimator whose
// limit is E[T(h)] != T*; it must produce a t statistic above the threshold.
TEST(LshAttention, RatioEstimatorIsConsistentPerHashAverageIsNot) {
  const Eigen::Index n = 40, d = 4;
  const double sigma = 3.0;
  const std::int64_t s = 512, batches = 32;
  const auto q = gaussian(n, d, 31), k = gaussian(n, d, 32), v = gaussian(n, d, 33);
  const auto exact = dense_attention(q, k, v, dense_alibi(n, sigma, Form::kSymmetric));
  const std::vector<std::pair<int, int>> entries = {{0, 0},  {5, 1},  {13, 2}, {19, 3},
                                                    {20, 0}, {27, 1}, {33, 2}, {39, 3}};
  std::vector<std::vector<double>> ratio_err(entries.size()), avg_err(entries.size());
  for (std::int64_t b = 0; b < batches; ++b) {
    const auto hashes = draw_hashes(77, static_cast<std::uint64_t>(b), s, sigma);
    const auto t_ratio = lsh_attention<double>(q, k, v, MaskMean(n, hashes));
    RowMatrix<double> t_avg = RowMatrix<double>::Zero(n, d);
    for (const auto& h : hashes)
      t_avg += lsh_attention<double>(q, k, v, MaskMean(n, std::span(&h, 1)));
    t_avg /= static_cast<double>(s);
    for (std::size_t e = 0; e < entries.size(); ++e) {
      const auto [i, c] = entries[e];
      ratio_err[e].push_back(t_ratio(i, c) - exact(i, c));
      avg_err[e].push_back(t_avg(i, c) - exact(i, c));
    }
  }
  auto t_stat = [&](const std::vector<double>& x) {
    double mean = 0, var = 0;
    for (double xi : x) mean += xi;
    mean /= double(x.size());
    for (double xi : x) var += (xi - mean) * (xi - mean);
    var /= double(x.size() - 1);
    return mean / std::sqrt(var / double(x.size()));
  };
  double worst_ratio = 0, worst_avg = 0;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    worst_ratio = std::max(worst_ratio, std::abs(t_stat(ratio_err[e])));
    worst_avg = std::max(worst_avg, std::abs(t_stat(avg_err[e])));
  }
  EXPECT_LT(worst_ratio, 4.5);
  EXPECT_GT(worst_avg, 4.5) << "the negative control was not detected";
}

// Certificates: per row, max_c |T~ - T*| <= row_bound, against the dense
// oracle's ratio; uniform bound >= certificate; ||M~ - L*||_∞ exact.
struct BoundCase {
  Eigen::Index n;
  double sigma, qk_scale;
  std::int64_t s;
  Form form;
};
void PrintTo(const BoundCase& c, std::ostream* os) {
  *os << testing::case_name(c.n, 0, c.sigma, c.qk_scale, c.s, c.form);
}
class Bounds : public ::testing::TestWithParam<BoundCase> {};
INSTANTIATE_TEST_SUITE_P(Cases, Bounds,
                         ::testing::Values(BoundCase{200, 4.0, 1.0, 1, Form::kSymmetric},
                                           BoundCase{200, 4.0, 1.0, 16, Form::kCausal},
                                           BoundCase{333, 10.0, 2.0, 64, Form::kSymmetric},
                                           BoundCase{333, 10.0, 2.0, 64, Form::kCausal},
                                           BoundCase{150, 60.0, 0.5, 8, Form::kSymmetric}),
                         [](const auto& info) {
                           const BoundCase& c = info.param;
                           return testing::case_name(c.n, 0, c.sigma, c.qk_scale, c.s, c.form);
                         });

TEST_P(Bounds, CertificateHoldsAndMatchesDenseOracle) {
  const BoundCase c = GetParam();
  const Eigen::Index d = 6;
  const auto q = gaussian(c.n, d, 41, c.qk_scale), k = gaussian(c.n, d, 42, c.qk_scale);
  const auto v = gaussian(c.n, d, 43);
  const MaskMean mask(c.n, draw_hashes(3, 2, c.s, c.sigma), c.form);
  SoftmaxRowStats st;
  const auto exact = exact_alibi_attention<double>(q, k, v, c.sigma, c.form, {}, &st);
  const auto approx = lsh_attention<double>(q, k, v, mask);
  const auto b = lsh_attention_bounds(q, k, v, c.sigma, mask, st, {.threads = 2});

  const Eigen::MatrixXd m = mask.dense(), l = dense_alibi(c.n, c.sigma, c.form);
  const Eigen::MatrixXd a = (q * k.transpose() / std::sqrt(double(d))).array().exp().matrix();
  const double vmax = v.cwiseAbs().maxCoeff();
  double inf_norm = 0;
  for (Eigen::Index i = 0; i < c.n; ++i) {
    const double num = (a.row(i).array() * (m.row(i) - l.row(i)).array().abs()).sum();
    const double den = (a.row(i).array() * l.row(i).array()).sum();
    EXPECT_NEAR(b.row_bound[i], 2 * vmax * num / den, 1e-10 * (1 + 2 * vmax * num / den));
    const double err = (approx.row(i) - exact.row(i)).cwiseAbs().maxCoeff();
    EXPECT_LE(err, b.row_bound[i] + b.rounding_allowance) << "row " << i;
    inf_norm = std::max(inf_norm, (m.row(i) - l.row(i)).cwiseAbs().sum());
  }
  EXPECT_NEAR(b.inf_norm_error, inf_norm, 1e-12 * inf_norm);
  EXPECT_NEAR(inf_norm_error(mask, c.sigma), inf_norm, 1e-12 * inf_norm);
  EXPECT_GE(b.uniform_bound, b.certificate);
  EXPECT_DOUBLE_EQ(b.v_max, vmax);
}

TEST(Bounds, MinimalRowSumOfAlibi) {
  const double sigma = 7.0;
  const Eigen::MatrixXd l = dense_alibi(50, sigma, Form::kSymmetric);
  EXPECT_NEAR(min_alibi_row_sum(50, sigma, Form::kSymmetric), l.rowwise().sum().minCoeff(), 1e-13);
  EXPECT_DOUBLE_EQ(min_alibi_row_sum(50, sigma, Form::kCausal), 1.0);
}

}  // namespace
}  // namespace poslsh
