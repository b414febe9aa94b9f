// Certified band-exact attention (band_attention.h) against dense exact
// attention: within its per-row bound on Gaussian and adversarial inputs, the
// band widening where large logits make far keys matter, bit-identical for
// any thread count, and tol = 0 is the dense path.
#include <gtest/gtest.h>
#include <poslsh/attention_bounds.h>
#include <poslsh/band_attention.h>
#include <poslsh/baseline_attention.h>
#include <poslsh/exact_attention.h>

#include <cmath>
#include <random>
#include <stdexcept>

namespace poslsh {
namespace {

RowMatrix<double> gaussian(Eigen::Index rows, Eigen::Index cols, unsigned seed, double scale) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, scale);
  RowMatrix<double> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(gen);
  return m;
}

struct BandCase {
  Eigen::Index n, d;
  double sigma, qk_scale;
  Form form;
};

class BandVsDense : public ::testing::TestWithParam<BandCase> {};

TEST_P(BandVsDense, WithinItsPerRowBoundAndSkipsKeys) {
  const BandCase c = GetParam();
  // Entries N(0, sqrt(qk_scale)): logits q.k / sqrt(d) have standard deviation qk_scale.
  const auto q = gaussian(c.n, c.d, 1, std::sqrt(c.qk_scale)),
             k = gaussian(c.n, c.d, 2, std::sqrt(c.qk_scale)), v = gaussian(c.n, 3, 3, 1.0);
  const auto exact = exact_alibi_attention<double>(q, k, v, c.sigma, c.form);
  const auto band = band_exact_attention<double>(q, k, v, c.sigma, c.form);
  int tiles_with_skips = 0;
  for (std::size_t t = 0; t < band.tile_half_width.size(); ++t)
    tiles_with_skips += band.tile_half_width[t] < c.n - 1;
  EXPECT_GT(tiles_with_skips, 0) << "the band never left a key out: the test proves nothing";
  EXPECT_LT(band.keys_per_query, c.form == Form::kCausal ? c.n / 2.0 : c.n);
  for (Eigen::Index i = 0; i < c.n; ++i) {
    const double err = (band.output.row(i) - exact.row(i)).cwiseAbs().maxCoeff();
    ASSERT_LE(err, band.row_bound[i] + 1e-13) << "row " << i;
    ASSERT_LE(band.skipped_mass[i], 0x1p-24) << "row " << i;
  }
  // The bound is not vacuous: at most tol times each row's reach.
  EXPECT_LE(band.certificate(), 0x1p-24 * 20);
  // float32: the same band, within the bound plus float32 rounding.
  const RowMatrix<float> qf = q.cast<float>(), kf = k.cast<float>(), vf = v.cast<float>();
  const auto band32 = band_exact_attention<float>(qf, kf, vf, c.sigma, c.form);
  EXPECT_LE((band32.output.cast<double>() - exact).cwiseAbs().maxCoeff(),
            band32.certificate() + 1e-5);
}

std::string band_case_name(const ::testing::TestParamInfo<BandCase>& info) {
  const BandCase& c = info.param;
  return "n" + std::to_string(c.n) + "_d" + std::to_string(c.d) + "_sigma" +
         std::to_string(static_cast<int>(c.sigma)) + "_qk" +
         std::to_string(static_cast<int>(c.qk_scale)) +
         (c.form == Form::kCausal ? "_causal" : "_symmetric");
}

INSTANTIATE_TEST_SUITE_P(Gaussian, BandVsDense,
                         ::testing::Values(BandCase{1500, 16, 2, 1, Form::kSymmetric},
                                           BandCase{1500, 16, 2, 1, Form::kCausal},
                                           BandCase{1300, 8, 4, 3, Form::kSymmetric},
                                           BandCase{1300, 8, 4, 3, Form::kCausal}),
                         band_case_name);

TEST(BandAttention, LargeFarLogitsWidenTheBand) {
  // Row 10's query and key 300's are large and aligned: logit 400 - 290 / 2 at
  // distance 290 outweighs every near key, so a band that did not widen would
  // miss most of row 10's mass.
  const Eigen::Index n = 512, d = 4;
  const double sigma = 2;
  RowMatrix<double> q = gaussian(n, d, 4, 0.1), k = gaussian(n, d, 5, 0.1);
  const RowMatrix<double> v = gaussian(n, 2, 6, 1.0);
  q(10, 0) = k(300, 0) = std::sqrt(400.0 * std::sqrt(double(d)));
  const auto exact = exact_alibi_attention<double>(q, k, v, sigma, Form::kSymmetric);
  const auto band = band_exact_attention<double>(q, k, v, sigma, Form::kSymmetric);
  // Tile 0 (rows 0..63) keeps the keys [0, 64 + w): key 300 must be among them.
  EXPECT_GT(kQueryTile + band.tile_half_width[0], 300);
  EXPECT_LE((band.output - exact).cwiseAbs().maxCoeff(), band.certificate() + 1e-13);
  // Negative control: the narrow band alone is far off on row 10.
  const auto narrow = sliding_window_attention<double>(q, k, v, sigma, 4, Form::kSymmetric);
  EXPECT_GT((narrow.row(10) - exact.row(10)).cwiseAbs().maxCoeff(), 0.1);
}

// The bound itself, against the true left-out mass: per row, the softmax mass
// of the keys outside its tile's kept range [q0 - w, q1 + w) (causal: j <= i)
// over the mass inside, computed densely, is at most skipped_mass[i] (the
// bound r_i); and the bound is not loose by more than the Cauchy-Schwarz
// logit bound allows (some row within e^(2 max logit) of it). Off-by-one
// distances or a tail summed over the wrong side would break the first.
TEST(BandAttention, TrueLeftOutMassIsBelowItsBound) {
  const Eigen::Index n = 700, d = 4;
  const double sigma = 3;
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const auto q = gaussian(n, d, 11, 0.7), k = gaussian(n, d, 12, 0.7), v = gaussian(n, 2, 13, 1);
    BandAttentionOptions opts;
    opts.tol = 1e-6;
    const auto band = band_exact_attention<double>(q, k, v, sigma, form, opts);
    double best_ratio = 0;
    int rows_with_skips = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::Index tile = i / kQueryTile, q0 = tile * kQueryTile,
                         q1 = std::min<Eigen::Index>(n, q0 + kQueryTile);
      const std::int64_t w = band.tile_half_width[static_cast<std::size_t>(tile)];
      double in = 0, out = 0;
      for (Eigen::Index j = 0; j < (form == Form::kCausal ? i + 1 : n); ++j) {
        const double mass = std::exp(q.row(i).dot(k.row(j)) / std::sqrt(double(d)) -
                                     std::abs(double(i - j)) / sigma);
        (j >= q0 - w && j < q1 + w ? in : out) += mass;
      }
      ASSERT_LE(out / in, band.skipped_mass[i] * (1 + 1e-12)) << "row " << i;
      if (out > 0) {
        ++rows_with_skips;
        best_ratio = std::max(best_ratio, (out / in) / band.skipped_mass[i]);
      }
    }
    EXPECT_GT(rows_with_skips, n / 2) << "the band kept (nearly) everything: nothing tested";
    EXPECT_GT(best_ratio, 1e-6) << "the bound is far looser than its logit bound explains";
  }
}

// A band-exact pass as the reference of another approximation's certificate:
// its row sums miss up to a fraction skipped_mass of the true ones, and the
// certificate must stay a bound on the error against dense exact attention.
// The band's real shortfall is far below its bound, so the negative control
// plants one: true row sums scaled by 1 - 1e-2 with slack 1e-2 / (1 - 1e-2)
// (the true sum at the top of the allowed interval). Read as exact sums, they
// make a wide window's certificate (its tail ~e^-6, below 1e-2) vanish.
TEST(BandAttention, CoarseBandStatisticsStillCertifyOtherApproximations) {
  const Eigen::Index n = 600, d = 4;
  const double sigma = 4;
  const auto q = gaussian(n, d, 14, 1), k = gaussian(n, d, 15, 1), v = gaussian(n, 2, 16, 1);
  SoftmaxRowStats dense;
  const auto exact = exact_alibi_attention<double>(q, k, v, sigma, Form::kSymmetric, {}, &dense);
  BandAttentionOptions coarse;
  coarse.tol = 1e-3;
  const auto band = band_exact_attention<double>(q, k, v, sigma, Form::kSymmetric, coarse);
  ASSERT_GT(band.stats.row_sum_slack.maxCoeff(), 1e-5);
  ASSERT_EQ(band.stats.row_sum.size(), n);
  SoftmaxRowStats planted = dense;
  const double short_by = 1e-2;
  planted.row_sum *= 1 - short_by;
  planted.row_sum_slack = Eigen::VectorXd::Constant(n, short_by / (1 - short_by));
  SoftmaxRowStats planted_as_exact = planted;
  planted_as_exact.row_sum_slack.resize(0);
  for (std::int64_t w : {8, 24}) {
    const auto window = sliding_window_attention<double>(q, k, v, sigma, w, Form::kSymmetric);
    auto violations = [&](const SoftmaxRowStats& stats) {
      const auto b = window_attention_bounds(q, k, v, sigma, w, Form::kSymmetric, stats);
      int bad = 0;
      for (Eigen::Index i = 0; i < n; ++i)
        bad += (window.row(i) - exact.row(i)).cwiseAbs().maxCoeff() >
               b.row_bound[i] + b.rounding_allowance;
      return bad;
    };
    EXPECT_EQ(violations(band.stats), 0) << "w " << w;
    EXPECT_EQ(violations(planted), 0) << "w " << w;
    if (w == 24) {
      EXPECT_GT(violations(planted_as_exact), 0) << "the slack made no difference: no test";
    }
  }
  // Its max_abs_logit bounds every pair's |q.k|/sqrt(d), kept or not.
  const Eigen::MatrixXd logits = (q * k.transpose()) / std::sqrt(double(d));
  EXPECT_GE(band.stats.max_abs_logit, logits.cwiseAbs().maxCoeff());
}

TEST(BandAttention, SameBitsForAnyThreadCountAndTolZeroIsDense) {
  const Eigen::Index n = 900, d = 8;
  const auto q = gaussian(n, d, 7, 1), k = gaussian(n, d, 8, 1), v = gaussian(n, 4, 9, 1);
  BandAttentionOptions one, two;
  two.attention.threads = 2;
  const auto a = band_exact_attention<double>(q, k, v, 3.0, Form::kCausal, one);
  const auto b = band_exact_attention<double>(q, k, v, 3.0, Form::kCausal, two);
  EXPECT_TRUE(a.output == b.output);
  EXPECT_TRUE(a.row_bound == b.row_bound);
  BandAttentionOptions dense;
  dense.tol = 0;
  const auto z = band_exact_attention<double>(q, k, v, 3.0, Form::kCausal, dense);
  EXPECT_TRUE(z.output == exact_alibi_attention<double>(q, k, v, 3.0, Form::kCausal));
  EXPECT_EQ(z.certificate(), 0.0);
}

TEST(BandAttention, BadArgumentsThrow) {
  const auto q = gaussian(16, 4, 1, 1);
  BandAttentionOptions bad;
  for (double tol : {-1e-9, 1.0, std::nan("")}) {
    bad.tol = tol;
    EXPECT_THROW(band_exact_attention<double>(q, q, q, 2.0, Form::kSymmetric, bad),
                 std::invalid_argument)
        << tol;
  }
  EXPECT_THROW(band_exact_attention<double>(q, q, q, -1.0, Form::kSymmetric),
               std::invalid_argument);
}

}  // namespace
}  // namespace poslsh
