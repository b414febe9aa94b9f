#include <poslsh/argument_error.h>
#include <poslsh/band_attention.h>
#include <poslsh/exact_attention.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include "internal/attention_work.h"
#include "online_softmax.h"

namespace poslsh {

void validate_band_attention_options(const BandAttentionOptions& options) {
  if (!(options.tol >= 0 && options.tol < 1))
    throw ArgumentError("band_tol", "must be a number in [0, 1)", format_value(options.tol));
}

namespace band_detail {  // named: the core is a unity build

// The keys a tile [q0, q1) leaves out when it keeps [q0 - w, q1 + w): the
// keys j < q0 - w lie at distances >= i - q0 + w + 1 from row i, the keys
// j >= q1 + w (symmetric form) at >= q1 + w - i; finite geometric sums, so
// the ends of the sequence count.
struct Tails {
  Eigen::Index q0, q1;
  std::int64_t w;
  double ln_left, ln_right;  // ln of the geometric sums' factors (-inf: no keys)
};

// The row-independent parts of the bound on the mass a tile leaves out, in
// double and in the log domain, and the half-width they choose per tile.
struct BandBound {
  Eigen::Index n;
  bool causal;
  double sigma;
  Eigen::VectorXd logit_bound;  // per row: |q_i| max_j |k_j| / sqrt(d)
  Eigen::RowVectorXd v_max;     // per value column: max_j |v_j|
  double ln_tol;
  double ln_geo;  // ln 1 / (1 - e^{-1/sigma})
  // The narrow first pass keeps [q0 - narrow, q1 + narrow) for its tile.
  std::int64_t narrow;

  // Σ_{t=0}^{m-1} e^{-t/sigma} = (1 - e^{-m/sigma}) / (1 - e^{-1/sigma}).
  double geometric(double m) const {
    return m <= 0 ? 0.0 : std::expm1(-m / sigma) / std::expm1(-1.0 / sigma);
  }
  Tails tails(Eigen::Index q0, Eigen::Index q1, std::int64_t w) const {
    const double left_keys = static_cast<double>(q0 - w);
    const double right_keys = causal ? 0.0 : static_cast<double>(n - (q1 + w));
    return Tails{q0, q1, w, std::log(geometric(left_keys)), std::log(geometric(right_keys))};
  }
  // ln of the left-out ALiBi weight of row i (-inf: none), in the log domain.
  double ln_alibi_out(const Tails& t, Eigen::Index i) const {
    const double a = t.ln_left - static_cast<double>(i - t.q0 + t.w + 1) / sigma;
    const double b = t.ln_right - static_cast<double>(t.q1 + t.w - i) / sigma;
    const double hi = std::max(a, b);
    return std::isinf(hi) ? hi : hi + std::log1p(std::exp(std::min(a, b) - hi));
  }
  // Whether half-width w leaves ln(bound on the mass left out) - ln_kept <=
  // ln_tol on every row of the tile (ln_kept: the rows' kept mass so far).
  bool fits(Eigen::Index q0, Eigen::Index q1, std::int64_t w, const double* ln_kept) const {
    const Tails t = tails(q0, q1, w);
    for (Eigen::Index i = q0; i < q1; ++i) {
      const double out = logit_bound[i] + ln_alibi_out(t, i);
      if (!(out - ln_kept[i - q0] <= ln_tol)) return false;  // (also NaN)
    }
    return true;
  }
  // The smallest w >= narrow that fits; the left-out weight decreases in w,
  // and for w >= n every key is kept. Closed form from the infinite geometric
  // tails (>= the finite ones):
  // w_i = sigma (logit_bound_i + ln(e^{-(i-q0+1)/sigma} + e^{-(q1-i)/sigma})
  //       - ln(1 - e^{-1/sigma}) - ln_kept_i - ln_tol); then checked with
  // the finite tails, and bisected upward in the (rounding) case it fails.
  std::int64_t half_width(Eigen::Index q0, Eigen::Index q1, const double* ln_kept) const {
    std::int64_t w = narrow;
    for (Eigen::Index i = q0; i < q1; ++i) {
      const double left = -static_cast<double>(i - q0 + 1) / sigma;
      const double right = -static_cast<double>(q1 - i) / sigma;  // ln(e^left + e^right):
      const double near =
          causal ? left : std::max(left, right) + std::log1p(std::exp(-std::abs(left - right)));
      const double need = sigma * (logit_bound[i] + near + ln_geo - ln_kept[i - q0] - ln_tol);
      if (!(need < static_cast<double>(n))) return n;  // (also NaN, e.g. an infinite logit bound)
      w = std::max<std::int64_t>(w, static_cast<std::int64_t>(std::ceil(need)));
    }
    if (w < n && !fits(q0, q1, w, ln_kept)) {
      std::int64_t lo = w, hi = n;
      while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(q0, q1, mid, ln_kept) ? hi : lo) = mid;
      }
      w = hi;
    }
    return w;
  }
};

template <typename Scalar>
BandBound band_bound(const ConstRowMatrixRef<Scalar>& q, const ConstRowMatrixRef<Scalar>& k,
                     const ConstRowMatrixRef<Scalar>& v, double sigma, bool causal, double tol) {
  BandBound bb;
  bb.n = q.rows();
  bb.causal = causal;
  bb.sigma = sigma;
  const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(q.cols()));
  const double k_max = k.template cast<double>().rowwise().norm().maxCoeff();
  bb.logit_bound = q.template cast<double>().rowwise().norm() * (k_max * inv_sqrt_d);
  bb.v_max = v.template cast<double>().cwiseAbs().colwise().maxCoeff();
  bb.ln_tol = std::log(tol);
  bb.ln_geo = -std::log(-std::expm1(-1.0 / sigma));
  bb.narrow = std::min<std::int64_t>(bb.n - 1,
                                     std::max<std::int64_t>(1, std::llround(std::ceil(2 * sigma))));
  return bb;
}

// One query tile [q0, q1) (tile `unit`) on the worker's state `st`: pass 1
// keeps the keys [q0 - narrow, q1 + narrow), whose mass bounds from below
// that of every wider key range; pass 2 adds the keys out to the half-width
// the bound asks for. Writes the tile's rows, statistics, half-width, kept
// keys and (when keys were left out) skipped mass and row bounds.
template <typename Scalar>
void band_tile(const BandBound& bb, const ConstRowMatrixRef<Scalar>& q,
               const ConstRowMatrixRef<Scalar>& k, const ConstRowMatrixRef<Scalar>& v,
               std::int64_t unit, detail::OnlineSoftmax<Scalar>& st, BandAttentionResult<Scalar>& result,
               double& beta, double& keys) {
  const Eigen::Index n = bb.n;
  const bool causal = bb.causal;
  const Eigen::Index q0 = unit * kQueryTile, q1 = std::min<Eigen::Index>(n, q0 + kQueryTile);
  const detail::LogitRule rule{1.0 / bb.sigma, causal, -1};
  const Eigen::Index end = causal ? q1 : n;  // keys beyond are masked for every row
  // Adds the keys [a, b) to the tile (nothing when empty) and counts them.
  auto add = [&](Eigen::Index a, Eigen::Index b) {
    a = std::max<Eigen::Index>(0, a);
    b = std::min(end, b);
    if (a >= b) return;
    st.accumulate(q, k, v, q0, q1, a, b, rule);
    double total = 0;
    for (Eigen::Index i = q0; i < q1; ++i)
      total +=
          static_cast<double>(std::max<Eigen::Index>(0, (causal ? std::min(b, i + 1) : b) - a));
    keys += total;
  };
  double ln_kept[kQueryTile];  // ln of each row's kept mass (computed)
  auto update_kept = [&] {
    for (Eigen::Index r = 0; r < q1 - q0; ++r)
      ln_kept[r] =
          static_cast<double>(st.row_max()[r]) + std::log(static_cast<double>(st.row_sum()[r]));
  };
  st.reset(q0);
  add(q0 - bb.narrow, q1 + bb.narrow);
  update_kept();
  const std::int64_t w = bb.half_width(q0, q1, ln_kept);
  if (w > bb.narrow) {  // pass 2: the keys left and right of pass 1's
    add(q0 - w, q0 - bb.narrow);
    add(q1 + bb.narrow, q1 + w);
  }
  st.write_output(result.output, q1 - q0);
  for (Eigen::Index r = 0; r < q1 - q0; ++r) {
    result.stats.row_max[q0 + r] = static_cast<double>(st.row_max()[r]);
    result.stats.row_sum[q0 + r] = static_cast<double>(st.row_sum()[r]);
  }
  beta = static_cast<double>(st.max_abs_logit());
  const bool all = q0 - w <= 0 && (causal || q1 + w >= n);
  result.tile_half_width[static_cast<std::size_t>(unit)] = all ? n - 1 : w;
  if (all) return;  // every key kept: exact
  update_kept();
  const Tails t = bb.tails(q0, q1, w);
  for (Eigen::Index i = q0; i < q1; ++i) {
    const double r = std::exp(bb.logit_bound[i] + bb.ln_alibi_out(t, i) - ln_kept[i - q0]);
    result.skipped_mass[i] = r;
    const double reach =
        (bb.v_max + result.output.row(i).template cast<double>().cwiseAbs()).maxCoeff();
    result.row_bound[i] = r / (1 + r) * reach;
  }
}

}  // namespace band_detail

template <typename Scalar>
BandAttentionResult<Scalar> band_exact_attention(const ConstRowMatrixRef<Scalar>& q,
                                                 const ConstRowMatrixRef<Scalar>& k,
                                                 const ConstRowMatrixRef<Scalar>& v, double sigma,
                                                 Form form, const BandAttentionOptions& options) {
  validate_attention_shapes(q.rows(), q.cols(), k.rows(), k.cols(), v.rows(), v.cols());
  check::positive_finite("sigma", sigma);
  validate_band_attention_options(options);
  const Eigen::Index n = q.rows();
  const bool causal = form == Form::kCausal;
  const std::int64_t units = (n + kQueryTile - 1) / kQueryTile;
  BandAttentionResult<Scalar> result;
  result.skipped_mass = Eigen::VectorXd::Zero(n);
  result.row_bound = Eigen::VectorXd::Zero(n);
  result.tile_half_width.assign(static_cast<std::size_t>(units), n - 1);
  if (options.tol == 0) {  // dense exact: nothing left out
    result.output =
        exact_alibi_attention<Scalar>(q, k, v, sigma, form, options.attention, &result.stats);
    result.stats.row_sum_slack = result.skipped_mass;
    result.keys_per_query = causal ? (n + 1) / 2.0 : static_cast<double>(n);
    return result;
  }
  const band_detail::BandBound bb =
      band_detail::band_bound<Scalar>(q, k, v, sigma, causal, options.tol);
  const int workers =
      static_cast<int>(std::min<std::int64_t>(resolve_threads(options.attention.threads), units));
  std::vector<detail::OnlineSoftmax<Scalar>> states;
  for (int w = 0; w < workers; ++w) {
    states.emplace_back(kQueryTile, q.cols(), v.cols());
    states.back().track_max_abs_logit(true);
  }
  std::vector<double> beta(static_cast<std::size_t>(units), 0.0);
  result.stats.row_max.resize(n);
  result.stats.row_sum.resize(n);
  result.output.resize(n, v.cols());
  std::vector<double> keys(static_cast<std::size_t>(units), 0.0);
  for_each_unit(units, workers, [&](std::int64_t unit, int worker) {
    band_detail::band_tile<Scalar>(bb, q, k, v, unit, states[static_cast<std::size_t>(worker)],
                                   result, beta[static_cast<std::size_t>(unit)],
                                   keys[static_cast<std::size_t>(unit)]);
  });
  double total = 0;
  for (double x : keys) total += x;
  result.keys_per_query = total / static_cast<double>(n);
  result.stats.row_sum_slack = result.skipped_mass;
  result.stats.max_abs_logit = *std::max_element(beta.begin(), beta.end());
  if (result.skipped_mass.maxCoeff() > 0 ||
      *std::min_element(result.tile_half_width.begin(), result.tile_half_width.end()) < n - 1)
    result.stats.max_abs_logit = std::max(result.stats.max_abs_logit, bb.logit_bound.maxCoeff());
  return result;
}

#define POSLSH_INSTANTIATE(S)                                                                \
  template BandAttentionResult<S> band_exact_attention<S>(                                   \
      const ConstRowMatrixRef<S>&, const ConstRowMatrixRef<S>&, const ConstRowMatrixRef<S>&, \
      double, Form, const BandAttentionOptions&);
POSLSH_INSTANTIATE(float)
POSLSH_INSTANTIATE(double)
#undef POSLSH_INSTANTIATE

}  // namespace poslsh
