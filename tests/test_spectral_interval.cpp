// The spectral solver's interval [lower, upper] and its estimate against a
// dense oracle, over several hundred small problems drawn the way the
// convergence experiment draws them (symmetric and causal, s = 1, 2, 4, where
// the spectrum's top is most degenerate and a single start is most easily
// fooled), plus the cases where the single-start solver was wrong.
#include <gtest/gtest.h>
#include <poslsh/spectral_error.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/lanczos_solver.h"  // a private header: the engine and its bound
#include "dense_norm_oracle.h"
#include "error_kinds.h"

namespace poslsh {
namespace {

using detail::kw_epsilon;
using detail::lanczos_extreme_eigenvalue;
using detail::LanesProduct;
using testing::dense_norm;

struct Problem {
  std::int64_t n;
  double sigma;
  std::int64_t s;
  Form form;
  std::uint64_t seed, trial;
};

std::string describe(const Problem& p) {
  return "n=" + std::to_string(p.n) + " sigma=" + std::to_string(p.sigma) +
         " s=" + std::to_string(p.s) + (p.form == Form::kSymmetric ? " symmetric" : " causal") +
         " seed=" + std::to_string(p.seed) + " trial=" + std::to_string(p.trial);
}

// Dense rounding is absolute at the scale of the entries of M~ and L* (<= 1).
constexpr double kRounding = 1e-11;

struct Tally {
  int problems = 0, ok = 0, finite_upper = 0;
  double worst_ok_error = 0.0;  // largest |value - dense| / (tol dense) over ok rows
  double widest = 0.0;          // largest certified relative width upper / lower - 1
};

void check_problem(const Problem& p, Tally& tally) {
  const auto hashes = draw_hashes(p.seed, p.trial, p.s, p.sigma);
  const ErrorOperator e(p.n, hashes, p.sigma, p.form);
  SpectralErrorOptions options;  // the defaults a convergence row uses
  options.seed = p.seed;
  options.trial = p.trial;
  const SpectralErrorResult r = spectral_error(e, options);
  const double want = dense_norm(e);
  ++tally.problems;
  EXPECT_LE(r.lower, want * (1 + 1e-12) + kRounding) << describe(p);
  EXPECT_GE(r.upper * (1 + 1e-12) + kRounding, want)
      << describe(p) << " upper " << r.upper << " dense " << want;
  if (std::isfinite(r.upper)) {
    ++tally.finite_upper;
    if (r.lower > 0) tally.widest = std::max(tally.widest, r.upper / r.lower - 1);
  }
  if (r.status == SolveStatus::kOk) {
    ++tally.ok;
    const double err = std::abs(r.value - want);
    EXPECT_LE(err, options.rel_tol * want + kRounding)
        << describe(p) << " value " << r.value << " dense " << want << " reported accuracy "
        << r.accuracy;
    tally.worst_ok_error = std::max(tally.worst_ok_error, err / (options.rel_tol * want));
  }
}

TEST(SpectralInterval, ContainsDenseNormOnDrawnSmallProblems) {
  // 360 problems: 5 sizes x 4 scales x 3 s x 2 forms x 3 trials, n <= 512.
  Tally tally;
  const std::vector<std::int64_t> sizes = {37, 96, 200, 384, 512};
  const std::vector<double> sigmas = {0.9, 3.0, 4.0, 16.0};
  std::uint64_t seed = 100;
  for (std::int64_t n : sizes)
    for (double sigma : sigmas)
      for (std::int64_t s : {1, 2, 4})
        for (Form form : {Form::kSymmetric, Form::kCausal})
          for (std::uint64_t trial : {0, 1, 2})
            check_problem({n, sigma, s, form, ++seed, trial}, tally);
  EXPECT_EQ(tally.problems, 360);
  // The default tolerance is met on (almost) every row, and the certificate is
  // informative: it is finite everywhere at these sizes.
  EXPECT_GE(tally.ok, tally.problems - 3);
  EXPECT_EQ(tally.finite_upper, tally.problems);
  RecordProperty("worst_ok_error_over_tol", std::to_string(tally.worst_ok_error));
  RecordProperty("widest_certified_width", std::to_string(tally.widest));
}

TEST(SpectralInterval, CasesThatFooledTheSingleStartSolver) {
  Tally tally;
  // A causal solve that reported 3.784147026 against a dense 3.784160959.
  check_problem({384, 3.0, 1, Form::kCausal, 11, 1}, tally);
  // n = 2048, sigma = 4, s = 1: a start nearly orthogonal to the top
  // eigenvector settled on the second eigenvalue (4e-5 below the first).
  // The dense oracles at n = 2048 take minutes under AddressSanitizer, which
  // checks memory, not numerics: the Release run covers them.
#ifndef __SANITIZE_ADDRESS__
  for (std::uint64_t seed = 0; seed < 6; ++seed)
    check_problem({2048, 4.0, 1, Form::kSymmetric, seed, 0}, tally);
  check_problem({2048, 4.0, 2, Form::kCausal, 3, 0}, tally);
#endif
  EXPECT_GE(tally.ok, tally.problems - 1);
}

TEST(SpectralInterval, WithoutItsGuardsTheEstimateIsFooled) {
  // Negative control for the guards (several starts that must agree, and the
  // wait for a certified width of 1e-2, which forces ~ln(sqrt(n)/q)/sqrt(eps)
  // steps): one start that stops as soon as its rise rule is met settles on a
  // plateau below the norm, off by 3.7e-6 relative at a 1e-6 tolerance.
  const auto hashes = draw_hashes(11, 1, 1, 3.0);
  const ErrorOperator e(384, hashes, 3.0, Form::kCausal);
  const double want = dense_norm(e);
  SpectralErrorOptions bare;
  bare.seed = 11;
  bare.trial = 1;
  bare.starts = 1;
  bare.upper_width = std::numeric_limits<double>::infinity();
  const SpectralErrorResult fooled = spectral_error(e, bare);
  ASSERT_EQ(fooled.status, SolveStatus::kOk);
  EXPECT_GT(std::abs(fooled.value - want), 3 * bare.rel_tol * want);
  // Either guard alone fixes this case.
  SpectralErrorOptions agree = bare;
  agree.starts = 3;
  SpectralErrorOptions wait = bare;
  wait.upper_width = 1e-2;
  for (const SpectralErrorOptions& o : {agree, wait}) {
    const SpectralErrorResult r = spectral_error(e, o);
    ASSERT_EQ(r.status, SolveStatus::kOk);
    EXPECT_LE(std::abs(r.value - want), o.rel_tol * want) << o.starts;
  }
}

TEST(SpectralInterval, WrongCertificateIsCaught) {
  // Negative control: the check above must fail on a solver whose upper end
  // is the Ritz value itself (no certificate). Find one problem where the
  // lower end is strictly below the dense norm, and verify that claiming
  // upper = lower would have been flagged.
  int caught = 0;
  for (std::uint64_t seed = 0; seed < 20 && caught == 0; ++seed) {
    const auto hashes = draw_hashes(seed, 0, 1, 4.0);
    const ErrorOperator e(512, hashes, 4.0, Form::kSymmetric);
    SpectralErrorOptions options;
    options.max_iterations = 12;  // stopped early: lower is well below the norm
    const SpectralErrorResult r = spectral_error(e, options);
    const double want = dense_norm(e);
    if (r.lower * (1 + 1e-12) + kRounding < want) {
      ++caught;
      EXPECT_GT(r.upper, want);  // the real certificate still holds there
    }
  }
  EXPECT_EQ(caught, 1);
}

TEST(SpectralInterval, KwEpsilonSolvesTheBound) {
  for (std::int64_t n : {10, 1 << 20}) {
    for (std::int64_t k : {1, 50, 400}) {
      for (double p : {1e-6, 0.01, 0.5}) {
        const double eps = kw_epsilon(n, k, p);
        const double lhs =
            1.648 * std::sqrt(static_cast<double>(n)) * std::exp(-(2.0 * k - 1) * std::sqrt(eps));
        EXPECT_NEAR(lhs, p, 1e-9 * p) << n << " " << k << " " << p;
      }
    }
  }
  // More steps, smaller eps; smaller failure probability, larger eps.
  EXPECT_LT(kw_epsilon(1024, 200, 1e-6), kw_epsilon(1024, 100, 1e-6));
  EXPECT_GT(kw_epsilon(1024, 100, 1e-9), kw_epsilon(1024, 100, 1e-6));
  EXPECT_THROW(kw_epsilon(0, 10, 0.1), std::invalid_argument);
  EXPECT_THROW(kw_epsilon(10, 0, 0.1), std::invalid_argument);
  EXPECT_THROW(kw_epsilon(10, 10, 0.0), std::invalid_argument);
  EXPECT_THROW(kw_epsilon(10, 10, 1.0), std::invalid_argument);
}

TEST(SpectralInterval, MoreStartsTightenTheCertificate) {
  const auto hashes = draw_hashes(5, 0, 16, 8.0);
  const ErrorOperator e(4096, hashes, 8.0);
  SpectralErrorOptions one;
  one.starts = 1;
  one.max_iterations = 60;
  one.rel_tol = 1e-15;  // both run all 60 steps
  one.upper_width = std::numeric_limits<double>::infinity();
  SpectralErrorOptions four = one;
  four.starts = 4;
  const SpectralErrorResult a = spectral_error(e, one), b = spectral_error(e, four);
  ASSERT_EQ(a.iterations, b.iterations);
  EXPECT_LT(b.upper / b.lower, a.upper / a.lower);
  EXPECT_GE(b.lower, a.lower);  // lane 0 is the single start: the best of four is no worse
  // Lane 0 of a multi-start solve is the single-start solve.
  EXPECT_EQ(b.matvecs, 4 * a.matvecs);
}

TEST(SpectralInterval, LaneProductsEqualSingleProductsBitForBit) {
  const auto hashes = draw_hashes(9, 0, 7, 3.0);
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    // 2500 positions: three tiles of the tiled products, the last one partial.
    const ErrorOperator e(2500, hashes, 3.0, form);
    const NormalOperator normal(e);
    for (int lanes = 1; lanes <= 8; ++lanes) {
      const std::int64_t n = e.rows();
      std::vector<double> x(static_cast<std::size_t>(n * lanes));
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * static_cast<double>(i));
      std::vector<double> y(x.size()), yt(x.size()), yn(x.size());
      e.perform_op_lanes(x.data(), y.data(), lanes);
      e.perform_transpose_op_lanes(x.data(), yt.data(), lanes);
      normal.perform_op_lanes(x.data(), yn.data(), lanes);
      std::vector<double> col(static_cast<std::size_t>(n)), out(col.size());
      for (int l = 0; l < lanes; ++l) {
        for (std::int64_t i = 0; i < n; ++i) col[i] = x[i * lanes + l];
        e.perform_op(col.data(), out.data());
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], y[i * lanes + l]) << lanes;
        e.perform_transpose_op(col.data(), out.data());
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], yt[i * lanes + l]) << lanes;
        normal.perform_op(col.data(), out.data());
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], yn[i * lanes + l]) << lanes;
      }
    }
    std::vector<double> x(22500), y(22500);
    testing::expect_broken_invariant([&] { e.perform_op_lanes(x.data(), y.data(), 9); });
  }
}

// Threads split the starts into groups advanced concurrently, each through
// its own product scratch. A start's arithmetic must not depend on its group:
// the same bits for every split, at small n through the engine directly (the
// solver itself keeps one group below 2^16) and at 2^16 through spectral_error.
TEST(SpectralInterval, StartsSplitOverThreadsGiveTheSameBits) {
  const auto same = [](const SpectralErrorResult& a, const SpectralErrorResult& b) {
    return a.lower == b.lower && a.upper == b.upper && a.accuracy == b.accuracy &&
           a.iterations == b.iterations && a.status == b.status;
  };
  const auto hashes = draw_hashes(21, 0, 4, 3.0);
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const ErrorOperator e(600, hashes, 3.0, form);
    const NormalOperator normal(e);
    for (int starts : {2, 3, 5}) {
      SpectralErrorOptions o{.seed = 21, .starts = starts};
      std::vector<ProductScratch> scratch(static_cast<std::size_t>(starts));
      std::vector<LanesProduct> products;
      for (auto& sc : scratch)
        products.emplace_back([&, s = &sc](const double* x, double* y, int lanes) {
          if (form == Form::kSymmetric)
            e.perform_op_lanes(x, y, lanes, *s);
          else
            normal.perform_op_lanes(x, y, lanes, *s);
        });
      const bool both = form == Form::kSymmetric;
      const SpectralErrorResult one = lanczos_extreme_eigenvalue(
          600, std::span<const LanesProduct>(products.data(), 1), both, o);
      for (std::size_t groups = 2; groups <= products.size(); ++groups) {
        const SpectralErrorResult split = lanczos_extreme_eigenvalue(
            600, std::span<const LanesProduct>(products.data(), groups), both, o);
        EXPECT_TRUE(same(one, split)) << "starts " << starts << " groups " << groups << ": "
                                      << one.lower << " vs " << split.lower;
      }
      // spectral_error fuses the recurrence's first pass into the operator's
      // last loop (lanczos_op_lanes); the engine above runs it after plain
      // products. Same bits (causal: the engine on E^T E with the options
      // spectral_error derives, then the square root).
      SpectralErrorOptions eig = o;
      if (!both) {
        eig.rel_tol = 2 * o.rel_tol;
        eig.upper_width = (1 + o.upper_width) * (1 + o.upper_width) - 1;
      }
      const SpectralErrorResult plain = lanczos_extreme_eigenvalue(
          600, std::span<const LanesProduct>(products.data(), 1), both, eig);
      const SpectralErrorResult fused = spectral_error(e, o);
      EXPECT_EQ(fused.iterations, plain.iterations) << "starts " << starts;
      EXPECT_EQ(fused.lower, both ? plain.lower : std::sqrt(plain.lower)) << "starts " << starts;
      EXPECT_EQ(fused.upper, both ? plain.upper : std::sqrt(plain.upper)) << "starts " << starts;
    }
  }
  const auto big = draw_hashes(5, 0, 16, 8.0);
  for (Form form : {Form::kSymmetric, Form::kCausal}) {
    const ErrorOperator e(std::int64_t{1} << 16, big, 8.0, form);
    const SpectralErrorResult a = spectral_error(e, {.seed = 5, .threads = 1});
    const SpectralErrorResult b = spectral_error(e, {.seed = 5, .threads = 2});
    EXPECT_TRUE(same(a, b)) << a.lower << " vs " << b.lower;
    EXPECT_EQ(a.status, SolveStatus::kOk);
  }
}

TEST(SpectralInterval, RejectsBadCertificateOptions) {
  const auto hashes = draw_hashes(4, 0, 3, 2.0);
  const ErrorOperator e(10, hashes, 2.0);
  EXPECT_THROW(spectral_error(e, {.starts = 0}), std::invalid_argument);
  EXPECT_THROW(spectral_error(e, {.starts = 9}), std::invalid_argument);
  EXPECT_THROW(spectral_error(e, {.upper_q = 0.0}), std::invalid_argument);
  EXPECT_THROW(spectral_error(e, {.upper_q = 1.0}), std::invalid_argument);
  EXPECT_THROW(spectral_error(e, {.upper_width = 0.0}), std::invalid_argument);
  EXPECT_THROW(spectral_error(e, {.upper_q = std::nan("")}), std::invalid_argument);
  EXPECT_THROW(spectral_error(e, {.threads = 0}), std::invalid_argument);
  // The products are poslsh's own (ErrorOperator's): none is a bug.
  testing::expect_broken_invariant(
      [] { lanczos_extreme_eigenvalue(10, std::span<const LanesProduct>(), true, {}); });
}

}  // namespace
}  // namespace poslsh
