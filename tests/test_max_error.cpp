// Exact max-norm and infinity-norm errors against dense matrices.
#include <gtest/gtest.h>
#include <poslsh/max_error.h>

#include <Eigen/Dense>
#include <cmath>

namespace poslsh {
namespace {

struct Dense {
  double max_error, inf_error;
};

Dense dense_errors(const ErrorOperator& e) {
  const Eigen::MatrixXd d = e.dense();
  return {d.cwiseAbs().maxCoeff(), d.cwiseAbs().rowwise().sum().maxCoeff()};
}

TEST(MaxError, ExactAgainstDenseOverGrid) {
  int checked = 0;
  for (std::int64_t n : {1, 2, 3, 50, 257, 1024}) {
    for (double sigma : {0.3, 2.0, 8.0, 40.0}) {
      for (std::int64_t s : {1, 3, 16, 64}) {
        for (Form form : {Form::kSymmetric, Form::kCausal}) {
          const auto hashes = draw_hashes(2024, 1, s, sigma);
          const ErrorOperator e(n, hashes, sigma, form);
          const EntrywiseError got = entrywise_error(e);
          const Dense want = dense_errors(e);
          EXPECT_NEAR(got.max_error, want.max_error, 1e-12) << n << " " << sigma << " " << s;
          EXPECT_NEAR(got.inf_error, want.inf_error, 1e-12) << n << " " << sigma << " " << s;
          EXPECT_EQ(got.largest_block, e.mask().largest_block());
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 6 * 4 * 4 * 2);
}

// The offsets are split into two chunks that one or two threads run; the
// chunks' row sums are added in a fixed order, so the bits are the same.
TEST(MaxError, TwoThreadsGiveTheSameBits) {
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    for (std::int64_t n : {2, 300, 5000}) {
      const auto hashes = draw_hashes(77, 0, 9, 6.0);
      const ErrorOperator e(n, hashes, 6.0, form);
      const EntrywiseError a = entrywise_error(e, 1), b = entrywise_error(e, 2);
      EXPECT_EQ(a.max_error, b.max_error) << n;
      EXPECT_EQ(a.inf_error, b.inf_error) << n;
      if (n <= 300) {
        const Dense want = dense_errors(e);
        EXPECT_NEAR(b.max_error, want.max_error, 1e-12);
        EXPECT_NEAR(b.inf_error, want.inf_error, 1e-12);
      }
    }
  }
  const ErrorOperator e(10, draw_hashes(1, 0, 2, 2.0), 2.0);
  EXPECT_THROW(entrywise_error(e, 0), std::invalid_argument);
}

TEST(MaxError, LargestN) {
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const auto hashes = draw_hashes(7, 0, 48, 16.0);
    const ErrorOperator e(2048, hashes, 16.0, form);
    const EntrywiseError got = entrywise_error(e);
    const Dense want = dense_errors(e);
    EXPECT_NEAR(got.max_error, want.max_error, 1e-12);
    EXPECT_NEAR(got.inf_error, want.inf_error, 1e-12);
  }
}

TEST(MaxError, BlockSpanningEverythingAndTailTerm) {
  // sigma far above n: one block covers all positions for most hashes (no
  // geometric tail); tiny sigma: singleton blocks, the error is all tail.
  for (double sigma : {1e4, 0.05}) {
    const auto hashes = draw_hashes(3, 0, 4, sigma);
    const ErrorOperator e(40, hashes, sigma);
    const EntrywiseError got = entrywise_error(e);
    const Dense want = dense_errors(e);
    EXPECT_NEAR(got.max_error, want.max_error, 1e-12);
    EXPECT_NEAR(got.inf_error, want.inf_error, 1e-12);
  }
}

TEST(MaxError, SingleHashHasClosedForm) {
  // With one hash every off-diagonal entry is 1 - r^t (same block) or -r^t.
  // When all blocks are shorter than 2, the max is r (offset 1).
  const double sigma = 0.05;
  const auto hashes = draw_hashes(9, 0, 1, sigma);
  const ErrorOperator e(30, hashes, sigma);
  ASSERT_EQ(e.mask().largest_block(), 1);
  EXPECT_DOUBLE_EQ(entrywise_error(e).max_error, std::exp(-1.0 / sigma));
}

}  // namespace
}  // namespace poslsh
