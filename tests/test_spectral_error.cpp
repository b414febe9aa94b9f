// The spectral-norm error (value-stopped Lanczos) against dense eigensolvers,
// and its status semantics.
#include <Spectra/MatOp/DenseSymMatProd.h>
#include <gtest/gtest.h>
#include <poslsh/rng.h>
#include <poslsh/spectral_error.h>

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include "core/lanczos_solver.h"  // a private header: symmetric_spectral_norm
#include "dense_norm_oracle.h"

namespace poslsh {
namespace {

using detail::symmetric_spectral_norm;
using testing::dense_norm;  // JacobiSVD is a second causal oracle below

void expect_matches_dense(const ErrorOperator& e, double rel_tol, std::uint64_t seed) {
  SpectralErrorOptions options;
  options.rel_tol = rel_tol;
  options.seed = seed;
  const SpectralErrorResult r = spectral_error(e, options);
  const double want = dense_norm(e);
  ASSERT_EQ(r.status, SolveStatus::kOk) << e.rows() << " acc " << r.accuracy;
  EXPECT_LE(r.accuracy, rel_tol);
  // Within the reported accuracy, and never above the true norm beyond
  // rounding (the Ritz value is a lower bound). Rounding is absolute at the
  // scale of the entries of M~ and L* (<= 1), whatever the size of the norm.
  constexpr double kRounding = 1e-12;
  EXPECT_LE(std::abs(r.value - want), r.accuracy * want + kRounding)
      << "n=" << e.rows() << " sigma=" << e.sigma() << " s=" << e.num_hashes() << " value "
      << r.value << " dense " << want;
  EXPECT_LE(r.value, want + kRounding);
  EXPECT_EQ(r.value, r.lower);
  // One product per start and step, E and E^T per step in the causal form.
  const std::int64_t per_step = options.starts * (e.form() == Form::kSymmetric ? 1 : 2);
  EXPECT_EQ(r.matvecs, per_step * r.iterations);
}

TEST(SpectralError, MatchesDenseOverGrid) {
  for (std::int64_t n : {2, 9, 130, 500}) {
    for (double sigma : {0.7, 4.0, 32.0}) {
      for (std::int64_t s : {1, 4, 64}) {
        for (Form form : {Form::kSymmetric, Form::kCausal}) {
          const auto hashes = draw_hashes(77, 2, s, sigma);
          expect_matches_dense(ErrorOperator(n, hashes, sigma, form), 1e-8, 5);
        }
      }
    }
  }
}

TEST(SpectralError, MatchesDenseAt2048) {
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const auto hashes = draw_hashes(3, 0, 64, 16.0);
    expect_matches_dense(ErrorOperator(2048, hashes, 16.0, form), 1e-8, 3);
  }
}

TEST(SpectralError, DefaultAccuracyHoldsAgainstDense) {
  // The default (1e-6) over several hash draws at n = 1024.
  for (std::uint64_t trial = 0; trial < 6; ++trial) {
    const auto hashes = draw_hashes(41, trial, 32, 8.0);
    const ErrorOperator e(1024, hashes, 8.0);
    const SpectralErrorResult r = spectral_error(e, {.seed = 41, .trial = trial});
    ASSERT_EQ(r.status, SolveStatus::kOk);
    EXPECT_LE(r.accuracy, 1e-6);
    EXPECT_LE(std::abs(r.value - dense_norm(e)), r.accuracy * r.value + 1e-12);
  }
}

TEST(SpectralError, CausalAgreesWithJacobiSvd) {
  const auto hashes = draw_hashes(8, 1, 16, 5.0);
  const ErrorOperator e(96, hashes, 5.0, Form::kCausal);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(e.dense());
  const SpectralErrorResult r = spectral_error(e, {.rel_tol = 1e-10});
  ASSERT_EQ(r.status, SolveStatus::kOk);
  EXPECT_NEAR(r.value, svd.singularValues()[0], 1e-9 * r.value);
}

TEST(SpectralError, IterationCapReportsNotConverged) {
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const auto hashes = draw_hashes(3, 0, 64, 16.0);
    const ErrorOperator e(1024, hashes, 16.0, form);
    const SpectralErrorResult r = spectral_error(e, {.rel_tol = 1e-10, .max_iterations = 3});
    EXPECT_EQ(r.status, SolveStatus::kNotConverged);
    EXPECT_TRUE(std::isnan(r.value));
    EXPECT_GT(r.accuracy, 1e-10);
    EXPECT_EQ(r.iterations, 3);
    EXPECT_GT(r.lower, 0.0);
    EXPECT_LE(r.lower, dense_norm(e) * (1 + 1e-12));
    EXPECT_EQ(to_string(r.status), "not_converged");
  }
}

TEST(SpectralError, DeterministicAndStartIndependent) {
  const auto hashes = draw_hashes(12, 0, 32, 8.0);
  const ErrorOperator e(3000, hashes, 8.0);
  const SpectralErrorResult a = spectral_error(e, {.seed = 1});
  const SpectralErrorResult b = spectral_error(e, {.seed = 1});
  const SpectralErrorResult c = spectral_error(e, {.seed = 2});
  EXPECT_EQ(a.value, b.value);  // bit-identical
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_LE(std::abs(a.value - c.value), (a.accuracy + c.accuracy) * a.value);
}

TEST(SpectralError, AgreesWithTightSpectraRun) {
  // The residual-based Spectra path as a reference at n = 4096 and 65536.
  for (std::int64_t n : {4096, 65536}) {
    for (Form form : {Form::kSymmetric, Form::kCausal}) {
      const auto hashes = draw_hashes(1, 0, 64, 16.0);
      const ErrorOperator e(n, hashes, 16.0, form);
      const SpectralErrorResult r = spectral_error(e, {.seed = 1});
      const SpectralErrorResult ref = spectral_error_spectra(e, 1e-11, 40);
      ASSERT_EQ(r.status, SolveStatus::kOk);
      ASSERT_EQ(ref.status, SolveStatus::kOk);
      EXPECT_LE(std::abs(r.value - ref.value), (r.accuracy + 1e-10) * ref.value) << n;
    }
  }
}

TEST(SpectralError, TinySizesAreExact) {
  const auto hashes = draw_hashes(4, 0, 3, 2.0);
  for (std::int64_t n : {1, 2, 3}) {
    const ErrorOperator e(n, hashes, 2.0);
    const SpectralErrorResult r = spectral_error(e);
    ASSERT_EQ(r.status, SolveStatus::kOk);
    EXPECT_NEAR(r.value, dense_norm(e), 1e-12);
  }
}

TEST(SpectralError, AnySymmetricOperatorThroughSpectrasInterface) {
  // symmetric_spectral_norm takes any operator with rows(), cols() and
  // perform_op. On the symmetric error operator it does spectral_error's
  // arithmetic (each lane of a lanes product is the one-vector product bit for
  // bit, and the plain first pass gives the fused pass's bits): same result.
  const auto hashes = draw_hashes(77, 2, 4, 4.0);
  const ErrorOperator e(500, hashes, 4.0);
  SpectralErrorOptions o;
  o.rel_tol = 1e-8;
  o.seed = 5;
  const SpectralErrorResult generic = symmetric_spectral_norm(e, o);
  const SpectralErrorResult fused = spectral_error(e, o);
  ASSERT_EQ(generic.status, SolveStatus::kOk);
  EXPECT_EQ(generic.value, fused.value);
  EXPECT_EQ(generic.upper, fused.upper);
  EXPECT_EQ(generic.iterations, fused.iterations);
  // The normal operator of the causal form: ||E_c||^2.
  const ErrorOperator causal(500, hashes, 4.0, Form::kCausal);
  const double want = dense_norm(causal);
  const SpectralErrorResult squared = symmetric_spectral_norm(NormalOperator(causal), o);
  ASSERT_EQ(squared.status, SolveStatus::kOk);
  EXPECT_NEAR(squared.value, want * want, 1e-7 * want * want + 1e-12);
  // A dense matrix through Spectra's own product, Q diag(d) Q^T with d in
  // [0, 1] and one eigenvalue -3: the norm is the largest MAGNITUDE (3), not
  // the largest eigenvalue (<= 1), which a one-ended solver would return.
  const Eigen::Index n = 120;
  Stream rng(11, 0, 0, StreamPurpose::kSyntheticQkv);
  Eigen::MatrixXd g(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) g(i, j) = rng.normal();
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(g).householderQ();
  Eigen::VectorXd d(n);
  for (Eigen::Index i = 0; i < n; ++i) d[i] = static_cast<double>(i) / static_cast<double>(n);
  d[n / 2] = -3.0;
  const Eigen::MatrixXd a = q * d.asDiagonal() * q.transpose();
  const Spectra::DenseSymMatProd<double> product(a);
  const SpectralErrorResult dense = symmetric_spectral_norm(product, o);
  ASSERT_EQ(dense.status, SolveStatus::kOk);
  EXPECT_NEAR(dense.value, 3.0, 1e-7);
  EXPECT_LE(dense.value, dense.upper);
}

TEST(SpectralError, RejectsBadOptions) {
  const auto hashes = draw_hashes(4, 0, 3, 2.0);
  const ErrorOperator e(10, hashes, 2.0);
  EXPECT_THROW(spectral_error(e, {.rel_tol = 0.0}), std::invalid_argument);
  EXPECT_THROW(spectral_error(e, {.max_iterations = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace poslsh
