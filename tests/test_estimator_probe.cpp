// The estimator line's probe (estimator_probe.h): its definition against a
// fully dense oracle built from block_starts alone, the sound estimator
// within rounding of it in both forms across chunk and tile edges, and each
// planted estimator bug (estimator_defect.h) far outside it. Deterministic:
// fixed seeds, no statistical level.
#include <gtest/gtest.h>
#include <poslsh/lsh_attention.h>

#include <cmath>
#include <vector>

#include "experiments/attention/attention.h"
#include "experiments/defects/estimator_defect.h"
#include "experiments/attention/estimator_probe.h"

namespace poslsh {
namespace estimator_probe_test {

// n = 700 crosses two 256-row chunks, key tiles and eleven query tiles.
constexpr std::int64_t kN = 700;

std::vector<PositionalHash> hashes(std::int64_t s, double sigma) {
  return draw_hashes(7, 3, s, sigma);
}

// T~ from its definition, every row: counts c_ij from block_starts.
RowMatrix<double> dense_oracle(const QkvData& data, const std::vector<PositionalHash>& hs,
                               Form form) {
  const auto q = data.q.head(0), k = data.k.head(0), v = data.v.head(0);
  Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(kN, kN);
  for (const auto& h : hs) {
    const auto starts = block_starts(h, kN);
    for (std::size_t b = 0; b + 1 < starts.size(); ++b)
      for (auto i = starts[b]; i < starts[b + 1]; ++i)
        for (auto j = starts[b]; j < starts[b + 1]; ++j)
          if (form == Form::kSymmetric || j <= i) counts(i, j) += 1;
  }
  Eigen::MatrixXd logits = q * k.transpose() / std::sqrt(static_cast<double>(q.cols()));
  RowMatrix<double> out(kN, v.cols());
  for (std::int64_t i = 0; i < kN; ++i) {
    const double top = logits.row(i).maxCoeff();
    Eigen::RowVectorXd w = counts.row(i).array() * (logits.row(i).array() - top).exp();
    out.row(i) = w * v / w.sum();
  }
  return out;
}

TEST(EstimatorProbe, RowsStraddleEveryTileEdge) {
  const auto rows = estimator_probe_rows(kN);
  for (std::int64_t edge = kQueryTile; edge < kN; edge += kQueryTile) {
    EXPECT_NE(std::find(rows.begin(), rows.end(), edge - 1), rows.end()) << edge;
    EXPECT_NE(std::find(rows.begin(), rows.end(), edge), rows.end()) << edge;
  }
  EXPECT_EQ(rows.front(), 0);
  EXPECT_EQ(rows.back(), kN - 1);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
}

TEST(EstimatorProbe, DefinitionMatchesTheDenseOracleAndTheSoundEstimator) {
  const QkvData data = synthetic_qkv(5, kN, 8, 4.0);  // peaked logits
  const auto q = data.q.head(0), k = data.k.head(0), v = data.v.head(0);
  for (const Form form : {Form::kSymmetric, Form::kCausal})
    for (const double sigma : {3.0, 40.0}) {
      const auto hs = hashes(16, sigma);
      const MaskMean mask(kN, hs, form);
      const auto fast = lsh_attention<double>(q, k, v, mask);
      // The probe's definition is the oracle's on the probed rows...
      EXPECT_LT(attention_estimator_deviation(q, k, v, hs, form, dense_oracle(data, hs, form)),
                1e-13);
      // ...and the sound kernels agree with it to rounding.
      EXPECT_LT(attention_estimator_deviation(q, k, v, hs, form, fast), 1e-13);
      EXPECT_LT(mask_product_deviation(mask, hs, v.col(0)), 1e-13);
    }
}

TEST(EstimatorProbe, EveryPlantedEstimatorBugIsFarBeyondRounding) {
  const QkvData data = synthetic_qkv(5, kN, 8, 1.0);
  const auto q = data.q.head(0), k = data.k.head(0), v = data.v.head(0);
  for (const auto bug : all_estimator_bugs()) {
    // The path bugs are the path probe's (tests/test_attention_paths.cpp).
    if (!estimator_bug_in_mask(bug)) continue;
    for (const Form form : {Form::kSymmetric, Form::kCausal}) {
      const auto hs = hashes(8, 16.0);
      const MaskMean mask = estimator_mask(kN, hs, form, bug);
      const auto fast = lsh_attention<double>(q, k, v, mask);
      const double dev = std::max(attention_estimator_deviation(q, k, v, hs, form, fast),
                                  mask_product_deviation(mask, hs, v.col(0)));
      EXPECT_GT(dev, 1e-3) << estimator_bug_name(bug);
    }
  }
}

// The path bugs leave the mask every lsh row uses alone: the table's lsh
// rows (and their estimator line) are those of the sound estimator.
TEST(EstimatorProbe, PathBugsLeaveTheMaskAlone) {
  const auto hs = hashes(8, 16.0);
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(kN, -1, 1);
  const MaskMean sound(kN, hs, Form::kSymmetric);
  Eigen::VectorXd want(kN), got(kN);
  sound.perform_op(x.data(), want.data());
  for (const auto bug : all_estimator_bugs()) {
    if (estimator_bug_in_mask(bug)) continue;
    estimator_mask(kN, hs, Form::kSymmetric, bug).perform_op(x.data(), got.data());
    EXPECT_EQ(got, want) << estimator_bug_name(bug);
  }
}

// Position ids cast to float16 before binning, in the consumer both arms of
// the error-law share (where a pipeline would have the cast): every block of
// positions above 2048 snaps to the float16 grid. The error-law lines compare
// two arms binned alike and cannot see it; the estimator line, which bins the
// probed rows from the hashes' own bin(), does.
std::int64_t float16_position(std::int64_t i) {
  if (i <= 2048) return i;
  const double ulp = std::ldexp(1.0, std::ilogb(static_cast<double>(i)) - 10);
  return static_cast<std::int64_t>(std::nearbyint(static_cast<double>(i) / ulp) * ulp);
}

TEST(EstimatorProbe, HalfPrecisionPositionsInTheSharedEstimatorAreCaught) {
  const std::int64_t n = 4096;
  const QkvData data = synthetic_qkv(5, n, 8, 1.0);
  const auto q = data.q.head(0), k = data.k.head(0), v = data.v.head(0);
  const auto hs = draw_hashes(5, 0, 8, 2.0);
  std::vector<std::vector<std::int64_t>> partitions;
  for (const auto& h : hs) {
    std::vector<std::int64_t> starts = {0};
    for (std::int64_t i = 1; i < n; ++i)
      if (h.bin(float16_position(i)) != h.bin(float16_position(i - 1))) starts.push_back(i);
    starts.push_back(n);
    partitions.push_back(std::move(starts));
  }
  const MaskMean cast(n, partitions, Form::kSymmetric), sound(n, hs, Form::kSymmetric);
  EXPECT_GT(attention_estimator_deviation(q, k, v, hs, Form::kSymmetric,
                                          lsh_attention<double>(q, k, v, cast)),
            1e-3);
  EXPECT_LT(attention_estimator_deviation(q, k, v, hs, Form::kSymmetric,
                                          lsh_attention<double>(q, k, v, sound)),
            1e-13);
}

}  // namespace estimator_probe_test
}  // namespace poslsh
