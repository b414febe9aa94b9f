#include <Spectra/SymEigsSolver.h>
#include <poslsh/argument_error.h>
#include <poslsh/rng.h>
#include <poslsh/spectral_error.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <thread>

#include "lanczos_op.h"
#include "lanczos_pass.h"
#include "lanczos_solver.h"
#include "lanes.h"

namespace poslsh {

using detail::kw_epsilon;
using detail::lanczos_extreme_eigenvalue;
using detail::LanesProduct;

std::string_view to_string(SolveStatus status) {
  return status == SolveStatus::kOk ? "ok" : "not_converged";
}

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kInf = std::numeric_limits<double>::infinity();
// The remaining distance of a Ritz value to its limit is estimated as
// kSafety times its increase over the second half of the run
// (docs/design-notes.md, "Design notes: the spectral-norm solver").
constexpr double kSafety = 2.0;
constexpr std::int64_t kMinSteps = 8;
// Relative accuracy floor: Ritz values of the computed tridiagonal matrix are
// only known to a few units of rounding times the operator norm.
constexpr double kAccuracyFloor = 1e-13;

// A bisection for the largest (top) or smallest eigenvalue of the leading
// k x k symmetric tridiagonal matrix (diagonal a, squared off-diagonal b2,
// b2[i] coupling rows i and i+1), inside [lo, hi].
struct Bisection {
  const double* a = nullptr;
  const double* b2 = nullptr;
  bool top = true;
  double lo = 0.0, hi = 0.0, pivmin = 0.0;
  double value() const { return 0.5 * (lo + hi); }
};

// Runs every bisection to full precision. Each step counts the eigenvalues
// below the midpoint by a Sturm sequence (the LDL^T pivots), a chain of
// dependent divisions: the bisections' chains are interleaved in one loop so
// that they overlap in the processor (one after another, the evaluations of
// the stopping rule were a visible share of a clustered row:
// docs/benchmarks.md). Each bisection
// takes exactly the steps, and gives exactly the value, it would alone.
void bisect(std::vector<Bisection>& jobs, std::int64_t k) {
  const std::size_t m = jobs.size();
  std::vector<std::size_t> active;
  active.reserve(m);
  std::vector<double> mid(m), d(m);
  std::vector<std::int64_t> below(m);
  for (int it = 0; it < 200; ++it) {
    active.clear();
    for (std::size_t j = 0; j < m; ++j) {
      const Bisection& b = jobs[j];
      const double x = 0.5 * (b.lo + b.hi);
      if (!(x > b.lo && x < b.hi)) continue;
      if (b.hi - b.lo <= 2 * kEps * std::max(std::abs(b.lo), std::abs(b.hi))) continue;
      active.push_back(j);
      mid[j] = x;
    }
    if (active.empty()) break;
    for (std::size_t j : active) {
      double dj = jobs[j].a[0] - mid[j];
      if (std::abs(dj) < jobs[j].pivmin) dj = -jobs[j].pivmin;
      d[j] = dj;
      below[j] = dj < 0 ? 1 : 0;
    }
    for (std::int64_t i = 1; i < k; ++i)
      for (std::size_t j : active) {
        double dj = (jobs[j].a[i] - mid[j]) - jobs[j].b2[i - 1] / d[j];
        if (std::abs(dj) < jobs[j].pivmin) dj = -jobs[j].pivmin;
        d[j] = dj;
        below[j] += dj < 0 ? 1 : 0;
      }
    for (std::size_t j : active) {
      Bisection& b = jobs[j];
      // top: the top eigenvalue is >= mid iff fewer than k eigenvalues lie
      // below mid; bottom: the bottom one is < mid iff at least one does.
      const bool up = b.top ? below[j] < k : below[j] < 1;
      (up ? b.lo : b.hi) = mid[j];
    }
  }
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

double detail::kw_epsilon(std::int64_t n, std::int64_t k, double p_fail) {
  check::at_least("n", n, 1);
  check::at_least("k", k, 1);
  check::open_unit("p", p_fail);
  // 1.648 sqrt(n) exp(-(2k - 1) sqrt(eps)) = p  <=>  sqrt(eps) = ln(1.648 sqrt(n) / p) / (2k - 1).
  const double root = std::max(0.0, std::log(1.648 * std::sqrt(static_cast<double>(n)) / p_fail)) /
                      static_cast<double>(2 * k - 1);
  return root * root;
}

namespace {

// One of the independent Lanczos processes run in lockstep.
struct Lane {
  std::vector<double> alpha, beta2;            // beta2[i] = beta_i^2 couples rows i and i+1
  double last_top = kInf, last_bottom = kInf;  // extreme Ritz values at the last evaluation
  double beta = 0.0;
  double gersh_lo = kInf, gersh_hi = -kInf, scale = 0.0;
};

// Certified upper end of the target eigenvalue (docs/MATH.md §9, "A certified
// interval for the spectral error"):
// Kuczynski-Wozniakowski applied to every lane's Krylov space; the lanes are
// independent, so all of them fall short with probability <= p1^lanes.
//  - PSD (one end): lambda <= theta / (1 - eps), eps at p1 = q^(1/lanes).
//  - both ends: with a = lambda_max^+, c = (-lambda_min)^+, E + c I and
//    c I - E... are PSD; the two events (each at p1 = (q/2)^(1/lanes)) give
//    a <= (theta_t + eps c)/(1 - eps) and c <= (theta_b + eps a)/(1 - eps),
//    solved jointly: a <= u (theta_t + r theta_b) / (1 - r^2), u = 1/(1-eps),
//    r = eps/(1-eps), valid for eps < 1/2.
double certified_upper(std::int64_t n, std::int64_t k, int lanes, bool both_ends, double q,
                       double theta_top, double theta_bottom) {
  const double p1 = std::pow(both_ends ? q / 2 : q, 1.0 / lanes);
  const double eps = kw_epsilon(n, k, p1);
  if (!both_ends) return eps < 1 ? std::max(theta_top, 0.0) / (1 - eps) : kInf;
  if (!(eps < 0.5)) return kInf;
  const double u = 1 / (1 - eps), r = eps / (1 - eps);
  const double t = std::max(theta_top, 0.0), b = std::max(theta_bottom, 0.0);
  return u * std::max(t + r * b, b + r * t) / (1 - r * r);
}

// The second pass of a Lanczos step on kLanes interleaved lanes (the first,
// w -= beta v_prev with alpha = v . w, is lanczos_pass.h's, done by the
// product or after it): w -= alpha v with beta2 = ||w||^2. Templated on the
// lane count so that the lane loop is a fixed-width SIMD operation.
template <int kLanes>
void second_pass_t(std::int64_t n, const double* alpha, const double* v, double* w, double* beta2) {
  double a[kLanes], b2[kLanes] = {};
  for (int l = 0; l < kLanes; ++l) a[l] = alpha[l];
  for (std::int64_t i = 0; i < n; ++i)
    for (int l = 0; l < kLanes; ++l) {
      const std::int64_t e = i * kLanes + l;
      w[e] -= a[l] * v[e];
      b2[l] += w[e] * w[e];
    }
  for (int l = 0; l < kLanes; ++l) beta2[l] = b2[l];
}

template <int kLanes>
void scale_lanes_t(std::int64_t n, const double* factor, double* w) {
  double f[kLanes];
  for (int l = 0; l < kLanes; ++l) f[l] = factor[l];
  for (std::int64_t i = 0; i < n; ++i)
    for (int l = 0; l < kLanes; ++l) w[i * kLanes + l] *= f[l];
}

void second_pass(int lanes, std::int64_t n, const double* alpha, const double* v, double* w,
                 double* beta2) {
  dispatch_lanes(lanes, "spectral_error", [&](auto L) { second_pass_t<L>(n, alpha, v, w, beta2); });
}

void scale_lanes(int lanes, std::int64_t n, const double* factor, double* w) {
  dispatch_lanes(lanes, "spectral_error", [&](auto L) { scale_lanes_t<L>(n, factor, w); });
}

// A Lanczos step's product with the first pass of the recurrence:
// (v, w, lanes, beta, v_prev, alpha) sets w = A v - beta v_prev and alpha =
// v . w per lane (lanczos_pass.h), fused by the error operators.
using StepProduct =
    std::function<void(const double*, double*, int, const double*, const double*, double*)>;

// The step product of a plain product: the pass after it.
StepProduct with_first_pass(const LanesProduct& apply, std::int64_t n) {
  return [&apply, n](const double* v, double* w, int lanes, const double* beta,
                     const double* v_prev, double* alpha) {
    apply(v, w, lanes);
    dispatch_lanes(lanes, "spectral_error",
                   [&](auto L) { detail::lanczos_first_pass<L>(n, beta, v, v_prev, w, alpha); });
  };
}

// Lanes [first, first + count), stored interleaved in their own buffers and
// advanced by one thread through its own product.
struct LaneGroup {
  int first = 0, count = 0;
  std::vector<double> v, v_prev, w;
  const StepProduct* apply = nullptr;
};

// Runs f(g) for every group, group 0 on the calling thread and the others on
// threads of their own; rethrows the first exception after all have joined.
template <class F>
void for_each_group(std::size_t groups, F&& f) {
  if (groups == 1) {
    f(std::size_t{0});
    return;
  }
  std::vector<std::exception_ptr> errors(groups);
  std::vector<std::thread> pool;
  pool.reserve(groups - 1);
  for (std::size_t g = 1; g < groups; ++g)
    pool.emplace_back([&, g] {
      try {
        f(g);
      } catch (...) {
        errors[g] = std::current_exception();
      }
    });
  try {
    f(std::size_t{0});
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

void validate_spectral_error_options(const SpectralErrorOptions& options) {
  check::positive_finite("rel_tol", options.rel_tol);
  check::at_least("max_iterations", options.max_iterations, 1);
  check::at_least("starts", options.starts, 1);
  if (options.starts > kMaxLanes)  // one lane of the blocked product per start
    throw ArgumentError("starts", "must be an integer in [1, 8]", std::to_string(options.starts));
  check::open_unit("upper_q", options.upper_q);
  if (!(options.upper_width > 0))
    throw ArgumentError("upper_width", "must be > 0 (inf: do not wait)",
                        format_value(options.upper_width));
}

namespace {

void validate_lanczos(std::int64_t n, std::size_t products, const SpectralErrorOptions& options) {
  check::at_least("n", n, 1);
  validate_spectral_error_options(options);
  if (products == 0) throw std::logic_error("spectral_error: no product given");
}

// The lanes split into G = min(products, lanes) groups, one per product (so
// no group is empty): group g holds lanes [g L / G, (g + 1) L / G),
// interleaved (entry i of its lane j at [i * count + j]). Every lane's
// arithmetic is the same whatever its group (the lanes products and the
// passes compute each lane exactly as alone), so results do not depend on the
// split. Lane l starts from Stream(seed, trial, l, kLanczosStart), normalised,
// so lane 0 is the single-start solver's start and adding lanes never changes
// the earlier ones.
std::vector<LaneGroup> start_lane_groups(std::int64_t n, std::span<const StepProduct> products,
                                         const SpectralErrorOptions& options) {
  const int L = options.starts;
  const auto G = std::min<std::size_t>(products.size(), static_cast<std::size_t>(L));
  std::vector<LaneGroup> groups(G);
  for (std::size_t g = 0; g < G; ++g) {
    LaneGroup& grp = groups[g];
    grp.first = static_cast<int>(g * L / G);
    grp.count = static_cast<int>((g + 1) * L / G) - grp.first;
    const auto N = static_cast<std::size_t>(n * grp.count);
    grp.v.resize(N);
    grp.v_prev.assign(N, 0.0);
    grp.w.resize(N);
    grp.apply = &products[g];
    for (int j = 0; j < grp.count; ++j) {
      Stream rng(options.seed, options.trial, static_cast<std::uint64_t>(grp.first + j),
                 StreamPurpose::kLanczosStart);
      double norm2 = 0.0;
      for (std::int64_t i = 0; i < n; ++i) {
        const double x = rng.normal();
        grp.v[i * grp.count + j] = x;
        norm2 += x * x;
      }
      const double inv = 1.0 / std::sqrt(norm2);
      for (std::int64_t i = 0; i < n; ++i) grp.v[i * grp.count + j] *= inv;
    }
  }
  return groups;
}

// The per-lane numbers of one step: alpha (a), ||w||^2 (b2), the beta given
// to the step and the next one (beta), and 1 / beta for the next vectors.
struct StepScalars {
  std::vector<double> a, b2, beta, inv_b;
  explicit StepScalars(int lanes) : a(lanes), b2(lanes), beta(lanes), inv_b(lanes) {}
};

// Step k of every group, each on its own thread (group 0 on this one).
void advance_groups(std::vector<LaneGroup>& groups, std::int64_t n, std::int64_t k,
                    StepScalars& x) {
  for_each_group(groups.size(), [&](std::size_t g) {
    LaneGroup& grp = groups[g];
    if (k > 1) {
      // Next Lanczos vectors: v_prev <- v, v <- w / beta (buffers rotate).
      scale_lanes(grp.count, n, x.inv_b.data() + grp.first, grp.w.data());
      std::swap(grp.v_prev, grp.v);
      std::swap(grp.v, grp.w);
    }
    // Paige's ordering of the three-term recurrence (the stable one), in
    // two passes: w -= beta v_prev with alpha = v.w (fused into the
    // product), then w -= alpha v with ||w||^2. Global orthogonality is
    // not maintained (docs/design-notes.md, the spectral-norm solver).
    (*grp.apply)(grp.v.data(), grp.w.data(), grp.count, x.beta.data() + grp.first,
                 grp.v_prev.data(), x.a.data() + grp.first);
    second_pass(grp.count, n, x.a.data() + grp.first, grp.v.data(), grp.w.data(),
                x.b2.data() + grp.first);
  });
}

// Appends step k's alpha to every lane's T_k and widens its Gershgorin
// interval; sets x.beta to the next off-diagonal. Returns whether some lane
// found an invariant subspace (its Ritz values are then exact).
bool extend_tridiagonals(std::vector<Lane>& lanes, std::int64_t k, StepScalars& x) {
  bool exhausted = false;
  for (std::size_t l = 0; l < lanes.size(); ++l) {
    Lane& lane = lanes[l];
    lane.alpha.push_back(x.a[l]);
    const double bnext = std::sqrt(x.b2[l]);
    // Gershgorin interval of T_k (grows with k; holds all its eigenvalues).
    lane.scale = std::max({lane.scale, std::abs(x.a[l]), bnext});
    lane.gersh_lo = std::min(lane.gersh_lo, x.a[l] - lane.beta - bnext);
    lane.gersh_hi = std::max(lane.gersh_hi, x.a[l] + lane.beta + bnext);
    if (bnext <= 64 * kEps * lane.scale * std::sqrt(static_cast<double>(k))) exhausted = true;
    x.beta[l] = bnext;
  }
  return exhausted;
}

// The lanes' extreme Ritz values at one evaluation: the best top and
// -bottom, the smallest lane's |value| and the largest scale.
struct RitzExtremes {
  double scale = 0.0, theta_top = -kInf, theta_bottom = -kInf, min_lane = kInf;
};

// Every lane's top (and bottom) Ritz value of T_k, the bisections run
// together. Each is monotone in k, so the last one bounds the next.
RitzExtremes extreme_ritz_values(std::vector<Lane>& lanes, std::int64_t k, bool both_ends) {
  std::vector<Bisection> jobs;
  for (const Lane& x : lanes) {
    const double pivmin =
        std::max(std::numeric_limits<double>::min(), kEps * kEps * x.scale * x.scale);
    const double lo = std::isfinite(x.last_top) ? x.last_top : x.gersh_lo;
    jobs.push_back({x.alpha.data(), x.beta2.data(), true, lo, x.gersh_hi, pivmin});
    if (both_ends) {
      const double hi = std::isfinite(x.last_bottom) ? x.last_bottom : x.gersh_hi;
      jobs.push_back({x.alpha.data(), x.beta2.data(), false, x.gersh_lo, hi, pivmin});
    }
  }
  bisect(jobs, k);
  RitzExtremes r;
  std::size_t job = 0;
  for (Lane& x : lanes) {
    x.last_top = jobs[job++].value();
    r.theta_top = std::max(r.theta_top, x.last_top);
    if (both_ends) {
      x.last_bottom = jobs[job++].value();
      r.theta_bottom = std::max(r.theta_bottom, -x.last_bottom);
    }
    r.min_lane = std::min(r.min_lane, both_ends ? std::max({x.last_top, -x.last_bottom, 0.0})
                                                : std::max(x.last_top, 0.0));
    r.scale = std::max(r.scale, x.scale);
  }
  return r;
}

// The stopping rule at step k: records the lanes' best values in the traces,
// sets result's lower, accuracy, upper and status, and returns whether the
// solve may stop (estimate within rel_tol and certified width reached, or a
// Krylov space exhausted).
bool evaluate_stop(const RitzExtremes& ritz, std::int64_t n, std::int64_t k, bool both_ends,
                   bool exhausted, const SpectralErrorOptions& options, RitzTrace& top,
                   RitzTrace& bottom, SpectralErrorResult& result) {
  // The lanes' best values: each lane's is monotone in k, so their maximum is.
  top.step.push_back(k);
  top.value.push_back(ritz.theta_top);
  double lower = std::max(ritz.theta_top, 0.0);
  if (both_ends) {
    bottom.step.push_back(k);
    bottom.value.push_back(ritz.theta_bottom);
    lower = std::max(lower, ritz.theta_bottom);
  }
  // Bracket estimate of the target eigenvalue: [lower, upper_est].
  double upper_est = ritz.theta_top + (exhausted ? 0.0 : top.remaining(lower));
  if (both_ends)
    upper_est =
        std::max(upper_est, ritz.theta_bottom + (exhausted ? 0.0 : bottom.remaining(lower)));
  upper_est = std::max(upper_est, lower);
  // The estimate's accuracy: the rise rule on the lanes' best values, and
  // the lanes' agreement. A start with little weight on the top
  // eigenvector sits on a plateau (a weighted mean of a near-degenerate
  // top cluster) where the rise rule sees nothing; an independent start
  // sits at another weighted mean, so disagreement exposes the plateau.
  const double acc =
      lower > 0 ? std::max({kAccuracyFloor, upper_est / lower - 1.0, 1.0 - ritz.min_lane / lower})
                : (upper_est > 0 ? kInf : kAccuracyFloor);
  // Certified upper end (rounding allowance: a few units of the operator's
  // scale), exact when a Krylov space is exhausted.
  double upper = exhausted ? lower
                           : certified_upper(n, k, options.starts, both_ends, options.upper_q,
                                             ritz.theta_top, ritz.theta_bottom);
  upper = std::max(upper + kAccuracyFloor * ritz.scale, lower);
  result.lower = lower;
  result.accuracy = acc;
  result.upper = upper;
  const bool estimate_ok = exhausted || acc <= options.rel_tol;
  result.status = estimate_ok ? SolveStatus::kOk : SolveStatus::kNotConverged;
  const bool width_ok = lower > 0 ? upper / lower - 1.0 <= options.upper_width : upper <= 0;
  return exhausted || (estimate_ok && width_ok);
}

SpectralErrorResult run_lanczos(std::int64_t n, std::span<const StepProduct> products,
                                bool both_ends, const SpectralErrorOptions& options) {
  validate_lanczos(n, products.size(), options);
  const int L = options.starts;
  std::vector<LaneGroup> groups = start_lane_groups(n, products, options);
  std::vector<Lane> lanes(static_cast<std::size_t>(L));
  RitzTrace top, bottom;  // the lanes' largest top and -bottom Ritz values (non-decreasing)
  StepScalars x(L);
  SpectralErrorResult result;
  const std::int64_t max_steps = options.max_iterations;
  bool exhausted = false;  // some lane found an invariant subspace: its Ritz values are exact
  for (std::int64_t k = 1; k <= max_steps; ++k) {
    for (int l = 0; l < L; ++l) x.beta[l] = lanes[l].beta;
    advance_groups(groups, n, k, x);
    ++result.iterations;
    if (extend_tridiagonals(lanes, k, x)) exhausted = true;
    // Evaluate the rule at every step early on, then about 64 times per
    // doubling of k: bisection costs O(k) per step and would otherwise rival
    // the products at large k. Skipped steps only lengthen the windows.
    const std::int64_t every = std::max<std::int64_t>(1, k / 64);
    if (exhausted || k == max_steps || k % every == 0) {
      const RitzExtremes ritz = extreme_ritz_values(lanes, k, both_ends);
      if (evaluate_stop(ritz, n, k, both_ends, exhausted, options, top, bottom, result)) break;
    }
    if (k == max_steps) break;
    for (int l = 0; l < L; ++l) {
      lanes[l].beta2.push_back(x.b2[l]);
      lanes[l].beta = x.beta[l];
      x.inv_b[l] = 1.0 / x.beta[l];
    }
  }
  result.matvecs = result.iterations * L;
  result.value =
      result.status == SolveStatus::kOk ? result.lower : std::numeric_limits<double>::quiet_NaN();
  return result;
}

}  // namespace

SpectralErrorResult detail::lanczos_extreme_eigenvalue(std::int64_t n, const LanesProduct& apply,
                                                       bool both_ends,
                                                       const SpectralErrorOptions& options) {
  return lanczos_extreme_eigenvalue(n, std::span<const LanesProduct>(&apply, 1), both_ends,
                                    options);
}

SpectralErrorResult detail::lanczos_extreme_eigenvalue(std::int64_t n,
                                                       std::span<const LanesProduct> products,
                                                       bool both_ends,
                                                       const SpectralErrorOptions& options) {
  std::vector<StepProduct> steps;
  for (const LanesProduct& p : products) steps.push_back(with_first_pass(p, n));
  return run_lanczos(n, steps, both_ends, options);
}

namespace {

// Below this n a product takes well under a millisecond and a thread's start
// would rival it: one group. The split does not change results.
constexpr std::int64_t kMinThreadedN = std::int64_t{1} << 16;

// One product per thread (at most one per start), each with its own scratch.
template <class Op>
std::vector<StepProduct> products_per_thread(const Op& op, std::int64_t n,
                                             const SpectralErrorOptions& options,
                                             std::vector<ProductScratch>& scratch) {
  check::at_least("threads", options.threads, 1);
  const int threads = n >= kMinThreadedN ? std::clamp(options.threads, 1, options.starts) : 1;
  scratch.resize(static_cast<std::size_t>(threads));
  std::vector<StepProduct> products;
  for (auto& s : scratch)
    products.emplace_back([&op, &s](const double* v, double* w, int lanes, const double* beta,
                                    const double* v_prev, double* alpha) {
      detail::lanczos_op_lanes(op, v, w, lanes, s, beta, v_prev, alpha);
    });
  return products;
}

}  // namespace

SpectralErrorResult spectral_error(const ErrorOperator& error,
                                   const SpectralErrorOptions& options) {
  const std::int64_t n = error.rows();
  std::vector<ProductScratch> scratch;
  if (error.form() == Form::kSymmetric)
    return run_lanczos(n, products_per_thread(error, n, options, scratch), true, options);
  // Causal: ||E_c||^2 is the top eigenvalue of the PSD normal operator. The
  // tolerance on the eigenvalue is twice the one on the norm (sqrt halves it).
  NormalOperator normal(error);
  SpectralErrorOptions eig_options = options;
  eig_options.rel_tol = 2.0 * options.rel_tol;
  // Width on the norm w  <=>  width on its square (1 + w)^2 - 1.
  eig_options.upper_width = (1 + options.upper_width) * (1 + options.upper_width) - 1;
  SpectralErrorResult r =
      run_lanczos(n, products_per_thread(normal, n, options, scratch), false, eig_options);
  r.matvecs = 2 * r.matvecs;
  r.lower = std::sqrt(r.lower);
  r.upper = std::sqrt(r.upper);
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
  if (n < 3) throw std::logic_error("the Spectra path needs n >= 3");
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
    r.upper = kInf;  // residual-based: no certificate against a missed eigenvalue
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
