// The matrix-free error operators against their dense matrices.
#include <gtest/gtest.h>
#include <poslsh/error_operator.h>
#include <poslsh/mask_mean.h>
#include <poslsh/rng.h>

#include <Eigen/Dense>
#include <stdexcept>
#include <vector>

#include "core/lanczos_op.h"     // a private header: the fused Lanczos products
#include "core/transpose_ops.h"  // a private header: the transposed products

namespace poslsh {
namespace {

using detail::alibi_kernel_transpose_op;
using detail::mask_mean_transpose_op;

Eigen::VectorXd random_vector(std::int64_t n, std::uint64_t seed) {
  Stream rng(seed, 0, 0, StreamPurpose::kSyntheticQkv);
  Eigen::VectorXd x(n);
  for (std::int64_t i = 0; i < n; ++i) x[i] = rng.normal();
  return x;
}

// Max |a - b| relative to ||x||_1: the products go through prefix sums of x,
// whose rounding is relative to the partial sums, not to the (small) entries of E.
double rel_diff(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x) {
  return (a - b).cwiseAbs().maxCoeff() / x.cwiseAbs().sum();
}

// M~ x (or M~_c^T x) by its definition, block by block: no prefix sums, no
// tiles, no difference array. The oracle of the tiled products at n too large
// for a dense matrix.
Eigen::VectorXd naive_mask_product(const MaskMean& m, const Eigen::VectorXd& x, bool transpose) {
  Eigen::VectorXd y = Eigen::VectorXd::Zero(x.size());
  for (std::int64_t k = 0; k < m.num_hashes(); ++k) {
    const auto st = m.blocks(k);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) {
      const std::int64_t lo = st[b], hi = st[b + 1];
      if (m.form() == Form::kSymmetric) {
        y.segment(lo, hi - lo).array() += x.segment(lo, hi - lo).sum();
      } else if (!transpose) {
        double run = 0.0;  // y_i gets x_lo + ... + x_i
        for (std::int64_t i = lo; i < hi; ++i) y[i] += (run += x[i]);
      } else {
        double run = 0.0;  // y_i gets x_i + ... + x_{hi-1}
        for (std::int64_t i = hi - 1; i >= lo; --i) y[i] += (run += x[i]);
      }
    }
  }
  return y / static_cast<double>(m.num_hashes());
}

struct Case {
  std::int64_t n;
  double sigma;
  std::int64_t s;
};

TEST(ErrorOperator, ProductsMatchDenseOverGrid) {
  int checked = 0;
  for (std::int64_t n : {1, 2, 7, 64, 301}) {
    for (double sigma : {0.4, 4.0, 37.0}) {
      for (std::int64_t s : {1, 5, 32}) {
        for (Form form : {Form::kSymmetric, Form::kCausal}) {
          const auto hashes = draw_hashes(11, 3, s, sigma);
          const ErrorOperator e(n, hashes, sigma, form);
          const Eigen::MatrixXd d = e.dense();
          // The dense error is M~ - L*, with the causal mask on both.
          Eigen::MatrixXd expect =
              MaskMean(n, hashes, form).dense() - AlibiKernel(n, sigma, form).dense();
          ASSERT_EQ((d - expect).cwiseAbs().maxCoeff(), 0.0);
          if (form == Form::kCausal && n > 1) {
            ASSERT_EQ(
                d.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff(),
                0.0);
          }
          const Eigen::VectorXd x = random_vector(n, n + s);
          Eigen::VectorXd y(n), yt(n), yn(n);
          e.perform_op(x.data(), y.data());
          e.perform_transpose_op(x.data(), yt.data());
          NormalOperator normal(e);
          normal.perform_op(x.data(), yn.data());
          const Eigen::MatrixXd dtd = d.transpose() * d;
          EXPECT_LE(rel_diff(y, d * x, x), 1e-13) << n << " " << sigma << " " << s;
          EXPECT_LE(rel_diff(yt, d.transpose() * x, x), 1e-13) << n << " " << sigma << " " << s;
          // E^T (E x): the first product's rounding is amplified by ||E^T||_inf.
          const double amplify = 1.0 + d.cwiseAbs().colwise().sum().maxCoeff();
          EXPECT_LE((yn - dtd * x).cwiseAbs().maxCoeff(),
                    1e-13 * (amplify * x.cwiseAbs().sum() + (d * x).cwiseAbs().sum()));
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 5 * 3 * 3 * 2);
}

TEST(ErrorOperator, TransposeHelpersMatchDense) {
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const std::int64_t n = 257;
    const auto hashes = draw_hashes(5, 0, 9, 6.0);
    const MaskMean mask(n, hashes, form);
    const AlibiKernel kernel(n, 6.0, form);
    const Eigen::VectorXd x = random_vector(n, 99);
    Eigen::VectorXd ym(n), yk(n);
    mask_mean_transpose_op(mask, x.data(), ym.data());
    alibi_kernel_transpose_op(kernel, x.data(), yk.data());
    const Eigen::MatrixXd md = mask.dense().transpose(), kd = kernel.dense().transpose();
    EXPECT_LE(rel_diff(ym, md * x, x), 1e-13);
    EXPECT_LE(rel_diff(yk, kd * x, x), 1e-13);
  }
}

TEST(ErrorOperator, ManyTilesMatchNaiveProducts) {
  // The products visit the blocks tile by tile (1024 positions); the dense
  // grid above fits in one tile. Here blocks cross tile boundaries, and at
  // sigma = 3000 some hashes start no block in a tile at all (pitch > tile)
  // and the prefix-sum ring spans several tiles. Oracle: the mask part block
  // by block, the kernel part through AlibiKernel's own recursions.
  const std::int64_t n = 50001;
  for (double sigma : {3.0, 3000.0}) {
    for (Form form : {Form::kSymmetric, Form::kCausal}) {
      const auto hashes = draw_hashes(21, 1, 24, sigma);
      const ErrorOperator e(n, hashes, sigma, form);
      const Eigen::VectorXd x = random_vector(n, 7);
      Eigen::VectorXd y(n), yt(n), ym(n), yk(n);
      e.perform_op(x.data(), y.data());
      e.kernel().perform_op(x.data(), yk.data());
      EXPECT_LE(rel_diff(y, naive_mask_product(e.mask(), x, false) - yk, x), 1e-13) << sigma;
      e.mask().perform_op(x.data(), ym.data());
      EXPECT_LE(rel_diff(ym, naive_mask_product(e.mask(), x, false), x), 1e-13) << sigma;
      e.perform_transpose_op(x.data(), yt.data());
      alibi_kernel_transpose_op(e.kernel(), x.data(), yk.data());
      EXPECT_LE(rel_diff(yt, naive_mask_product(e.mask(), x, true) - yk, x), 1e-13) << sigma;
      // The library's untiled transpose helper agrees too.
      mask_mean_transpose_op(e.mask(), x.data(), ym.data());
      EXPECT_LE(rel_diff(ym, naive_mask_product(e.mask(), x, true), x), 1e-13) << sigma;
      // A wrong operator must fail the same check (negative control).
      EXPECT_GT(rel_diff(y, naive_mask_product(e.mask(), x, false) + yk, x), 1e-6);
    }
  }
}

TEST(ErrorOperator, TiledMaskProductHandlesEveryPartitionShape) {
  // Hand-made partitions of n = 5000 (not a multiple of the 1024-position
  // tile): a block spanning four tiles (the prefix-sum ring must hold it),
  // blocks ending exactly on tile boundaries, blocks of one position, and a
  // single block. Each hash alone and all together, both forms.
  const std::int64_t n = 5000;
  std::vector<std::int64_t> ones(n + 1);
  for (std::int64_t i = 0; i <= n; ++i) ones[i] = i;
  const std::vector<std::vector<std::int64_t>> shapes = {
      {0, 3, 4100, 4101, n}, {0, 1024, 2048, 3072, 4096, n}, ones, {0, n}, {0, 1023, 1025, n}};
  const Eigen::VectorXd x = random_vector(n, 11);
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    for (std::size_t k = 0; k <= shapes.size(); ++k) {
      const auto parts =
          k < shapes.size() ? std::vector<std::vector<std::int64_t>>{shapes[k]} : shapes;
      const MaskMean m(n, parts, form);
      Eigen::VectorXd y(n);
      m.perform_op(x.data(), y.data());
      EXPECT_LE(rel_diff(y, naive_mask_product(m, x, false), x), 1e-13) << k;
    }
  }
}

TEST(ErrorOperator, LanczosOpIsTheProductThenTheFirstLanczosPass) {
  // detail::lanczos_op_lanes fuses w -= beta v_prev, alpha = v . w into the product's
  // last loop. Oracle: the plain product, then the pass written out with
  // Eigen; each lane of an interleaved call also equals the one-lane call.
  const std::int64_t n = 2500;  // three tiles
  const auto hashes = draw_hashes(13, 0, 5, 7.0);
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const ErrorOperator e(n, hashes, 7.0, form);
    const NormalOperator normal(e);
    for (int which = 0; which < 2; ++which) {  // E, then E^T E
      std::vector<Eigen::VectorXd> v, vp;
      for (int l = 0; l < 3; ++l) {
        v.push_back(random_vector(n, 30 + l));
        vp.push_back(random_vector(n, 40 + l));
      }
      const double beta[3] = {0.75, 0.0, 2.5};
      std::vector<double> vi(static_cast<std::size_t>(3 * n)), vpi(vi.size()), wi(vi.size());
      for (std::int64_t i = 0; i < n; ++i)
        for (int l = 0; l < 3; ++l) {
          vi[i * 3 + l] = v[l][i];
          vpi[i * 3 + l] = vp[l][i];
        }
      double alpha[3];
      ProductScratch scratch;
      if (which == 0)
        detail::lanczos_op_lanes(e, vi.data(), wi.data(), 3, scratch, beta, vpi.data(), alpha);
      else
        detail::lanczos_op_lanes(normal, vi.data(), wi.data(), 3, scratch, beta, vpi.data(), alpha);
      for (int l = 0; l < 3; ++l) {
        Eigen::VectorXd w(n), w1(n);
        if (which == 0)
          e.perform_op(v[l].data(), w.data());
        else
          normal.perform_op(v[l].data(), w.data());
        w -= beta[l] * vp[l];
        const double scale = w.cwiseAbs().maxCoeff() + 1.0;
        for (std::int64_t i = 0; i < n; ++i)
          ASSERT_NEAR(wi[i * 3 + l], w[i], 1e-12 * scale) << which << " lane " << l;
        EXPECT_NEAR(alpha[l], v[l].dot(w), 1e-10 * (std::abs(v[l].dot(w)) + 1.0)) << which;
        // One lane alone: the same bits as lane l of the interleaved call.
        double a1;
        if (which == 0)
          detail::lanczos_op_lanes(e, v[l].data(), w1.data(), 1, scratch, &beta[l], vp[l].data(),
                                   &a1);
        else
          detail::lanczos_op_lanes(normal, v[l].data(), w1.data(), 1, scratch, &beta[l],
                                   vp[l].data(), &a1);
        EXPECT_EQ(a1, alpha[l]) << which << " lane " << l;
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(w1[i], wi[i * 3 + l]) << which;
      }
    }
  }
}

TEST(ErrorOperator, RejectsBadParameters) {
  const auto hashes = draw_hashes(1, 0, 2, 4.0);
  EXPECT_THROW(ErrorOperator(0, hashes, 4.0), std::invalid_argument);
  EXPECT_THROW(ErrorOperator(10, hashes, 0.0), std::invalid_argument);
  EXPECT_THROW(ErrorOperator(10, {}, 4.0), std::invalid_argument);
  // Block positions are stored in 32 bits. One giant block per hash keeps the
  // mask cheap to build before the check.
  const auto wide = draw_hashes(1, 0, 2, 1e12);
  EXPECT_THROW(ErrorOperator(std::int64_t{1} << 32, wide, 1e12), std::invalid_argument);
}

}  // namespace
}  // namespace poslsh
