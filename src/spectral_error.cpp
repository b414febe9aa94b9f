#include "spectral_error.h"

#include <Spectra/SymEigsSolver.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "rng.h"

namespace poslsh {

std::string_view to_string(SolveStatus status) {
  return status == SolveStatus::kOk ? "ok" : "not_converged";
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kInf = std::numeric_limits<double>::infinity();
// The remaining distance of a Ritz value to its limit is estimated as
// kSafety times its increase over the second half of the run (see the header).
constexpr double kSafety = 2.0;
constexpr std::int64_t kMinSteps = 8;
// Relative accuracy floor: Ritz values of the computed tridiagonal matrix are
// only known to a few units of rounding times the operator norm.
constexpr double kAccuracyFloor = 1e-13;

// Number of eigenvalues of the symmetric tridiagonal (a, b) smaller than x
// (Sturm sequence through the LDL^T pivots; b[i] couples rows i and i+1).
std::int64_t count_below(const std::vector<double>& a, const std::vector<double>& b2,
                         std::int64_t k, double x, double pivmin) {
  std::int64_t count = 0;
  double d = a[0] - x;
  if (std::abs(d) < pivmin) d = -pivmin;
  if (d < 0) ++count;
  for (std::int64_t i = 1; i < k; ++i) {
    d = (a[i] - x) - b2[i - 1] / d;
    if (std::abs(d) < pivmin) d = -pivmin;
    if (d < 0) ++count;
  }
  return count;
}

// Largest (top = true) or smallest eigenvalue of the leading k x k tridiagonal
// matrix, by bisection to full precision inside [lo, hi].
double extreme_eigenvalue(const std::vector<double>& a, const std::vector<double>& b2,
                          std::int64_t k, bool top, double lo, double hi, double pivmin) {
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (!(mid > lo && mid < hi)) break;
    if (hi - lo <= 2 * kEps * std::max(std::abs(lo), std::abs(hi))) break;
    const std::int64_t c = count_below(a, b2, k, mid, pivmin);
    if (top) {
      // top eigenvalue >= mid iff fewer than k eigenvalues lie below mid.
      if (c < k)
        lo = mid;
      else
        hi = mid;
    } else {
      // bottom eigenvalue < mid iff at least one eigenvalue lies below mid.
      if (c >= 1)
        hi = mid;
      else
        lo = mid;
    }
  }
  return 0.5 * (lo + hi);
}

// Ritz values at the steps where the stopping rule was evaluated.
struct RitzTrace {
  std::vector<std::int64_t> step;
  std::vector<double> value;  // monotone non-decreasing (sign chosen by the caller)

  // kSafety * (value now - value at the last evaluated step <= k/2); +inf
  // before kMinSteps. Increments at rounding level count as converged.
  double remaining(double norm_scale) const {
    const std::int64_t k = step.back();
    if (k < kMinSteps) return kInf;
    const auto it = std::upper_bound(step.begin(), step.end(), k / 2);
    const double then = value[static_cast<std::size_t>(it - step.begin()) - 1];
    const double d = std::max(0.0, value.back() - then);
    const double noise = 0.25 * kAccuracyFloor * norm_scale;
    return d <= noise ? 0.0 : kSafety * d;
  }
};

}  // namespace

SpectralErrorResult lanczos_extreme_eigenvalue(
    std::int64_t n, const std::function<void(const double*, double*)>& apply, bool both_ends,
    const SpectralErrorOptions& options, LanczosHistory* history) {
  if (n < 1) throw std::invalid_argument("n must be an integer >= 1");
  if (!(options.rel_tol > 0) || !std::isfinite(options.rel_tol))
    throw std::invalid_argument("rel_tol must be a finite number > 0");
  if (options.max_iterations < 1)
    throw std::invalid_argument("max_iterations must be an integer >= 1");

  SpectralErrorResult result;
  std::vector<double> v(n), v_prev(n, 0.0), w(n);
  Stream rng(options.seed, options.trial, 0, StreamPurpose::kLanczosStart);
  double norm2 = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    v[i] = rng.normal();
    norm2 += v[i] * v[i];
  }
  const double inv = 1.0 / std::sqrt(norm2);
  for (auto& x : v) x *= inv;

  std::vector<double> alpha, beta2;  // beta2[i] = beta_i^2 couples rows i and i+1
  RitzTrace top, bottom;
  double beta = 0.0;
  double gersh_lo = kInf, gersh_hi = -kInf, scale = 0.0;
  const std::int64_t max_steps = options.max_iterations;
  bool exhausted = false;  // invariant subspace found: Ritz values are exact
  // Next Lanczos vector: v_prev <- v, v <- w / beta (buffers rotate, no copy).
  const auto advance = [&](double bnext, double bnext2) {
    beta2.push_back(bnext2);
    beta = bnext;
    const double inv_b = 1.0 / bnext;
    for (std::int64_t i = 0; i < n; ++i) w[i] *= inv_b;
    std::swap(v_prev, v);
    std::swap(v, w);
  };
  for (std::int64_t k = 1; k <= max_steps; ++k) {
    apply(v.data(), w.data());
    ++result.iterations;
    // Paige's ordering of the three-term recurrence (the stable one), in two
    // fused passes: w -= beta v_prev with alpha = v.w, then w -= alpha v with
    // ||w||^2. Global orthogonality is not maintained (see the header).
    double a = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      w[i] -= beta * v_prev[i];
      a += v[i] * w[i];
    }
    double bnext2 = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      w[i] -= a * v[i];
      bnext2 += w[i] * w[i];
    }
    alpha.push_back(a);
    const double bnext = std::sqrt(bnext2);

    // Gershgorin interval of T_k (grows with k; holds all its eigenvalues).
    scale = std::max({scale, std::abs(a), bnext});
    gersh_lo = std::min(gersh_lo, a - beta - bnext);
    gersh_hi = std::max(gersh_hi, a + beta + bnext);
    exhausted = bnext <= 64 * kEps * scale * std::sqrt(static_cast<double>(k));
    // Evaluate the rule at every step early on, then about 64 times per
    // doubling of k: bisection costs O(k) per step and would otherwise rival
    // the products at large k. Skipped steps only lengthen the windows.
    const std::int64_t every = std::max<std::int64_t>(1, k / 64);
    if (!exhausted && k != max_steps && k % every != 0) {
      advance(bnext, bnext2);
      continue;
    }
    const double pivmin = std::max(std::numeric_limits<double>::min(), kEps * kEps * scale * scale);
    const double prev_top = top.value.empty() ? gersh_lo : top.value.back();
    top.step.push_back(k);
    top.value.push_back(extreme_eigenvalue(alpha, beta2, k, true, prev_top, gersh_hi, pivmin));
    double lower = std::max(top.value.back(), 0.0);
    if (both_ends) {
      // The bottom end enters as -theta_min, also non-decreasing.
      const double prev_bottom = bottom.value.empty() ? gersh_hi : -bottom.value.back();
      bottom.step.push_back(k);
      bottom.value.push_back(
          -extreme_eigenvalue(alpha, beta2, k, false, gersh_lo, prev_bottom, pivmin));
      lower = std::max({std::abs(top.value.back()), std::abs(bottom.value.back())});
    }
    // Bracket of the target eigenvalue: [lower, upper].
    double upper = top.value.back() + (exhausted ? 0.0 : top.remaining(lower));
    if (both_ends)
      upper = std::max(upper, bottom.value.back() + (exhausted ? 0.0 : bottom.remaining(lower)));
    upper = std::max(upper, lower);
    result.lower = lower;
    result.accuracy = lower > 0 ? std::max(kAccuracyFloor, upper / lower - 1.0)
                                : (upper > 0 ? kInf : kAccuracyFloor);
    if (exhausted || result.accuracy <= options.rel_tol) {
      result.status = SolveStatus::kOk;
      break;
    }
    advance(bnext, bnext2);
  }
  if (history) {
    history->step = top.step;
    history->top = top.value;
    history->bottom = bottom.value;
    for (auto& b : history->bottom) b = -b;
  }
  result.matvecs = result.iterations;
  result.value =
      result.status == SolveStatus::kOk ? result.lower : std::numeric_limits<double>::quiet_NaN();
  return result;
}

SpectralErrorResult spectral_error(const ErrorOperator& error,
                                   const SpectralErrorOptions& options) {
  const std::int64_t n = error.rows();
  if (error.form() == Form::kSymmetric) {
    return lanczos_extreme_eigenvalue(
        n, [&](const double* x, double* y) { error.perform_op(x, y); }, true, options);
  }
  // Causal: ||E_c||^2 is the top eigenvalue of the PSD normal operator. The
  // tolerance on the eigenvalue is twice the one on the norm (sqrt halves it).
  NormalOperator normal(error);
  SpectralErrorOptions eig_options = options;
  eig_options.rel_tol = 2.0 * options.rel_tol;
  SpectralErrorResult r = lanczos_extreme_eigenvalue(
      n, [&](const double* x, double* y) { normal.perform_op(x, y); }, false, eig_options);
  r.matvecs = 2 * r.iterations;
  r.lower = std::sqrt(r.lower);
  r.accuracy = std::isfinite(r.accuracy) ? std::sqrt(1.0 + r.accuracy) - 1.0 : r.accuracy;
  r.accuracy = std::max(r.accuracy, kAccuracyFloor);
  if (r.status == SolveStatus::kOk && r.accuracy > options.rel_tol)
    r.status = SolveStatus::kNotConverged;
  r.value = r.status == SolveStatus::kOk ? r.lower : std::numeric_limits<double>::quiet_NaN();
  return r;
}

namespace {

// Spectra takes its operator by non-const reference; this view forwards to a
// const operator (whose products are const).
template <typename Op>
struct ConstOpView {
  using Scalar = double;
  const Op& op;
  Eigen::Index rows() const { return op.rows(); }
  Eigen::Index cols() const { return op.cols(); }
  void perform_op(const Scalar* x, Scalar* y) const { op.perform_op(x, y); }
};

template <typename Op>
SpectralErrorResult run_spectra(const Op& op, Spectra::SortRule rule, double tol, std::int64_t ncv,
                                std::int64_t max_restarts, bool seeded,
                                const SpectralErrorOptions& start) {
  const std::int64_t n = op.rows();
  SpectralErrorResult r;
  if (n < 3) throw std::invalid_argument("the Spectra path needs n >= 3");
  ncv = std::clamp<std::int64_t>(ncv, 2, n);
  ConstOpView<Op> view{op};
  Spectra::SymEigsSolver<ConstOpView<Op>> eigs(view, 1, static_cast<Eigen::Index>(ncv));
  if (seeded) {
    Eigen::VectorXd v0(n);
    Stream rng(start.seed, start.trial, 0, StreamPurpose::kLanczosStart);
    for (std::int64_t i = 0; i < n; ++i) v0[i] = rng.normal();
    eigs.init(v0.data());
  } else {
    eigs.init();
  }
  eigs.compute(rule, static_cast<Eigen::Index>(max_restarts), tol);
  r.iterations = eigs.num_iterations();
  r.matvecs = eigs.num_operations();
  if (eigs.info() == Spectra::CompInfo::Successful) {
    r.status = SolveStatus::kOk;
    r.lower = std::abs(eigs.eigenvalues()[0]);
    r.value = r.lower;
    r.accuracy = tol;
  } else {
    r.value = std::numeric_limits<double>::quiet_NaN();
    r.accuracy = kInf;
  }
  return r;
}

}  // namespace

SpectralErrorResult spectral_error_spectra(const ErrorOperator& error, double tol, std::int64_t ncv,
                                           std::int64_t max_restarts, bool use_seeded_start,
                                           const SpectralErrorOptions& start) {
  if (error.form() == Form::kSymmetric)
    return run_spectra(error, Spectra::SortRule::LargestMagn, tol, ncv, max_restarts,
                       use_seeded_start, start);
  NormalOperator normal(error);
  SpectralErrorResult r = run_spectra(normal, Spectra::SortRule::LargestAlge, tol, ncv,
                                      max_restarts, use_seeded_start, start);
  r.matvecs *= 2;
  if (r.status == SolveStatus::kOk) {
    r.lower = std::sqrt(r.lower);
    r.value = r.lower;
    r.accuracy = tol / 2;
  }
  return r;
}

}  // namespace poslsh
