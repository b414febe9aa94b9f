#include <poslsh/argument_error.h>
#include <poslsh/band_attention.h>
#include <poslsh/exact_attention.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace poslsh {

void validate_band_attention_options(const BandAttentionOptions& options) {
  if (!(options.tol >= 0 && options.tol < 1))
    throw ArgumentError("band_tol", "must be a number in [0, 1)", format_value(options.tol));
}

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

  // Row-independent parts of the bound, in double and in the log domain.
  const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(q.cols()));
  const double k_max = k.template cast<double>().rowwise().norm().maxCoeff();
  // The logit bound of each row: |q_i| max_j |k_j| / sqrt(d).
  const Eigen::VectorXd logit_bound =
      q.template cast<double>().rowwise().norm() * (k_max * inv_sqrt_d);
  const Eigen::RowVectorXd v_max = v.template cast<double>().cwiseAbs().colwise().maxCoeff();
  const double ln_tol = std::log(options.tol);
  const double ln_geo = -std::log(-std::expm1(-1.0 / sigma));  // ln 1 / (1 - e^{-1/sigma})
  // Σ_{t=0}^{m-1} e^{-t/sigma} = (1 - e^{-m/sigma}) / (1 - e^{-1/sigma}).
  auto geometric = [sigma](double m) {
    return m <= 0 ? 0.0 : std::expm1(-m / sigma) / std::expm1(-1.0 / sigma);
  };
  // The ALiBi weight of the keys left out of the rows of tile [q0, q1) when
  // it keeps the keys [q0 - w, q1 + w): the keys j < q0 - w lie at distances
  // >= i - q0 + w + 1 from row i, the keys j >= q1 + w (symmetric form) at
  // >= q1 + w - i; finite geometric sums, so the ends of the sequence count.
  struct Tails {
    Eigen::Index q0, q1;
    std::int64_t w;
    double ln_left, ln_right;  // ln of the geometric sums' factors (-inf: no keys)
  };
  auto tails = [&](Eigen::Index q0, Eigen::Index q1, std::int64_t w) {
    const double left_keys = static_cast<double>(q0 - w);
    const double right_keys = causal ? 0.0 : static_cast<double>(n - (q1 + w));
    return Tails{q0, q1, w, std::log(geometric(left_keys)), std::log(geometric(right_keys))};
  };
  // ln of the left-out weight of row i (-inf: none), in the log domain.
  auto ln_alibi_out = [&](const Tails& t, Eigen::Index i) {
    const double a = t.ln_left - static_cast<double>(i - t.q0 + t.w + 1) / sigma;
    const double b = t.ln_right - static_cast<double>(t.q1 + t.w - i) / sigma;
    const double hi = std::max(a, b);
    return std::isinf(hi) ? hi : hi + std::log1p(std::exp(std::min(a, b) - hi));
  };
  // The narrow first pass keeps [q0 - narrow, q1 + narrow) for its tile.
  const auto narrow =
      std::min<std::int64_t>(n - 1, std::max<std::int64_t>(1, std::llround(std::ceil(2 * sigma))));

  const int workers =
      static_cast<int>(std::min<std::int64_t>(resolve_threads(options.attention.threads), units));
  std::vector<OnlineSoftmax<Scalar>> states;
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
    const Eigen::Index q0 = unit * kQueryTile, q1 = std::min<Eigen::Index>(n, q0 + kQueryTile);
    auto& st = states[static_cast<std::size_t>(worker)];
    const LogitRule rule{1.0 / sigma, causal, -1};
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
      keys[static_cast<std::size_t>(unit)] += total;
    };
    double ln_kept[kQueryTile];  // ln of each row's kept mass (computed)
    auto update_kept = [&] {
      for (Eigen::Index r = 0; r < q1 - q0; ++r)
        ln_kept[r] =
            static_cast<double>(st.row_max()[r]) + std::log(static_cast<double>(st.row_sum()[r]));
    };
    // Pass 1: the keys [q0 - narrow, q1 + narrow). Its mass bounds from below
    // the mass of every wider key range of the tile.
    st.reset(q0);
    add(q0 - narrow, q1 + narrow);
    update_kept();
    // The smallest w >= narrow with ln(bound on the mass left out) - ln_kept
    // <= ln_tol on every row; the left-out weight decreases in w, and for
    // w >= n every key is kept.
    auto fits = [&](std::int64_t w) {
      const Tails t = tails(q0, q1, w);
      for (Eigen::Index i = q0; i < q1; ++i) {
        const double out = logit_bound[i] + ln_alibi_out(t, i);
        if (!(out - ln_kept[i - q0] <= ln_tol)) return false;  // (also NaN)
      }
      return true;
    };
    // Closed form from the infinite geometric tails (>= the finite ones):
    // w_i = sigma (logit_bound_i + ln(e^{-(i-q0+1)/sigma} + e^{-(q1-i)/sigma})
    //       - ln(1 - e^{-1/sigma}) - ln_kept_i - ln_tol); then checked with
    // the finite tails, and bisected upward in the (rounding) case it fails.
    std::int64_t w = narrow;
    for (Eigen::Index i = q0; i < q1; ++i) {
      const double left = -static_cast<double>(i - q0 + 1) / sigma;
      const double right = -static_cast<double>(q1 - i) / sigma;  // ln(e^left + e^right):
      const double near =
          causal ? left : std::max(left, right) + std::log1p(std::exp(-std::abs(left - right)));
      const double need = sigma * (logit_bound[i] + near + ln_geo - ln_kept[i - q0] - ln_tol);
      if (!(need < static_cast<double>(n))) {  // (also NaN, e.g. an infinite logit bound)
        w = n;
        break;
      }
      w = std::max<std::int64_t>(w, static_cast<std::int64_t>(std::ceil(need)));
    }
    if (w < n && !fits(w)) {
      std::int64_t lo = w, hi = n;
      while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? hi : lo) = mid;
      }
      w = hi;
    }
    if (w > narrow) {  // pass 2: the keys left and right of pass 1's
      add(q0 - w, q0 - narrow);
      add(q1 + narrow, q1 + w);
    }
    st.write_output(result.output, q1 - q0);
    for (Eigen::Index r = 0; r < q1 - q0; ++r) {
      result.stats.row_max[q0 + r] = static_cast<double>(st.row_max()[r]);
      result.stats.row_sum[q0 + r] = static_cast<double>(st.row_sum()[r]);
    }
    beta[static_cast<std::size_t>(unit)] = static_cast<double>(st.max_abs_logit());
    const bool all = q0 - w <= 0 && (causal || q1 + w >= n);
    result.tile_half_width[static_cast<std::size_t>(unit)] = all ? n - 1 : w;
    if (all) return;  // every key kept: exact
    update_kept();
    const Tails t = tails(q0, q1, w);
    for (Eigen::Index i = q0; i < q1; ++i) {
      const double r = std::exp(logit_bound[i] + ln_alibi_out(t, i) - ln_kept[i - q0]);
      result.skipped_mass[i] = r;
      const double reach =
          (v_max + result.output.row(i).template cast<double>().cwiseAbs()).maxCoeff();
      result.row_bound[i] = r / (1 + r) * reach;
    }
  });
  double total = 0;
  for (double x : keys) total += x;
  result.keys_per_query = total / static_cast<double>(n);
  result.stats.row_sum_slack = result.skipped_mass;
  result.stats.max_abs_logit = *std::max_element(beta.begin(), beta.end());
  if (result.skipped_mass.maxCoeff() > 0 ||
      *std::min_element(result.tile_half_width.begin(), result.tile_half_width.end()) < n - 1)
    result.stats.max_abs_logit = std::max(result.stats.max_abs_logit, logit_bound.maxCoeff());
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
