// The O(n) and O(n + #blocks) products against their dense oracles (MATH §6).
#include <gtest/gtest.h>
#include <poslsh/alibi_kernel.h>
#include <poslsh/input_error.h>
#include <poslsh/mask_mean.h>
#include <poslsh/rng.h>

#include "error_kinds.h"

namespace poslsh {
namespace {

Eigen::VectorXd random_vector(std::int64_t n, std::uint64_t seed) {
  Stream rng(seed, 0, 0, StreamPurpose::kLanczosStart);
  Eigen::VectorXd x(n);
  for (auto& v : x) v = rng.normal();
  return x;
}

template <class Op>
void expect_matches_dense(const Op& op, std::uint64_t seed) {
  const Eigen::MatrixXd dense = op.dense();
  const Eigen::VectorXd x = random_vector(op.rows(), seed);
  Eigen::VectorXd y(op.rows());
  op.perform_op(x.data(), y.data());
  const Eigen::VectorXd expected = dense * x;
  EXPECT_LE((y - expected).norm(), 1e-12 * std::max(1.0, expected.norm())) << "n=" << op.rows();
}

TEST(Operators, AlibiKernelProductMatchesDense) {
  for (auto form : {Form::kSymmetric, Form::kCausal})
    for (std::int64_t n : {1, 2, 5, 64, 700})
      for (double sigma : {0.3, 1.0, 8.0, 500.0})
        expect_matches_dense(AlibiKernel(n, sigma, form), n);
}

TEST(Operators, AlibiKernelDenseIsTheDefinition) {
  const AlibiKernel sym(6, 2.0), causal(6, 2.0, Form::kCausal);
  const Eigen::MatrixXd d = sym.dense(), c = causal.dense();
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      EXPECT_DOUBLE_EQ(d(i, j), std::exp(-std::abs(i - j) / 2.0));
      EXPECT_DOUBLE_EQ(c(i, j), j <= i ? std::exp(-(i - j) / 2.0) : 0.0);
    }
  // ||L*|| approaches coth(1/(2 sigma)) from below.
  const double norm = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(AlibiKernel(400, 3.0).dense())
                          .eigenvalues()
                          .maxCoeff();
  EXPECT_LT(norm, alibi_norm_limit(3.0));
  EXPECT_GT(norm, 0.95 * alibi_norm_limit(3.0));
}

TEST(Operators, MaskMeanProductMatchesDense) {
  for (auto form : {Form::kSymmetric, Form::kCausal})
    for (std::int64_t n : {1, 3, 64, 513})
      for (double sigma : {0.4, 4.0, 2000.0})  // 2000: blocks larger than n
        for (std::int64_t s : {1, 7, 64}) {
          const auto hashes = draw_hashes(5, 1, s, sigma);
          expect_matches_dense(MaskMean(n, hashes, form), n + s);
        }
}

TEST(Operators, MaskMeanDenseIsTheMeanOfBlockMasks) {
  // Two hand-made hashes on n = 6: blocks {0,1},{2,3,4},{5} and {0..2},{3..5}.
  const std::vector<PositionalHash> h = {{3.0, 2.0}, {3.0, 0.0}};
  EXPECT_EQ(block_starts(h[0], 6), (std::vector<std::int64_t>{0, 2, 5, 6}));
  EXPECT_EQ(block_starts(h[1], 6), (std::vector<std::int64_t>{0, 3, 6}));
  const Eigen::MatrixXd m = MaskMean(6, h).dense();
  EXPECT_DOUBLE_EQ(m(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(m(1, 2), 0.5);
  EXPECT_DOUBLE_EQ(m(2, 4), 0.5);
  EXPECT_DOUBLE_EQ(m(4, 5), 0.5);
  EXPECT_DOUBLE_EQ(m(0, 3), 0.0);
  EXPECT_EQ(MaskMean(6, h).largest_block(), 3);
  EXPECT_EQ(MaskMean(6, h).num_blocks(), 5);
  const Eigen::MatrixXd c = MaskMean(6, h, Form::kCausal).dense();
  EXPECT_DOUBLE_EQ(c(2, 1), 0.5);
  EXPECT_DOUBLE_EQ(c(1, 2), 0.0);
}

TEST(Operators, MaskMeanFromPartitionsIsTheMaskMeanOfTheirHashes) {
  // The same hashes given as their block starts: same operator, bit for bit.
  const auto hashes = draw_hashes(7, 2, 5, 3.0);
  std::vector<std::vector<std::int64_t>> partitions;
  for (const auto& h : hashes) partitions.push_back(block_starts(h, 300));
  for (auto form : {Form::kSymmetric, Form::kCausal}) {
    const MaskMean from_hashes(300, hashes, form), from_partitions(300, partitions, form);
    EXPECT_EQ(from_partitions.dense(), from_hashes.dense());
    EXPECT_EQ(from_partitions.largest_block(), from_hashes.largest_block());
    EXPECT_EQ(from_partitions.num_blocks(), from_hashes.num_blocks());
    expect_matches_dense(from_partitions, 3);
  }
  // Each partition must be 0 = p[0] < ... < p.back() = n; the error names it.
  using P = std::vector<std::vector<std::int64_t>>;
  for (const P& bad : {P{{0, 2, 6}, {1, 6}}, P{{0, 6}, {0, 3, 5}}, P{{0, 6}, {0, 3, 3, 6}},
                       P{{0, 6}, {6}}, P{{0, 6}, {}}}) {
    try {
      MaskMean(6, bad);
      ADD_FAILURE() << "accepted a bad partition";
    } catch (const InputError& e) {
      EXPECT_STREQ(e.what(),
                   "MaskMean: partition 1 is not a list of block starts 0 = p[0] < p[1] < ... "
                   "< p.back() = n = 6");
    }
  }
  testing::expect_broken_invariant([] { MaskMean(6, P{}); });
  EXPECT_THROW(MaskMean(0, P{{0}}), std::invalid_argument);
}

TEST(Operators, RejectBadParameters) {
  EXPECT_THROW(AlibiKernel(0, 1.0), std::invalid_argument);
  EXPECT_THROW(AlibiKernel(4, -1.0), std::invalid_argument);
  EXPECT_THROW(AlibiKernel(4, NAN), std::invalid_argument);
  testing::expect_broken_invariant([] { MaskMean(4, std::vector<PositionalHash>{}); });
  EXPECT_THROW(MaskMean(0, draw_hashes(1, 0, 2, 1.0)), std::invalid_argument);
}

}  // namespace
}  // namespace poslsh
