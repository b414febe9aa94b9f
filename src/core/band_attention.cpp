#include <poslsh/band_attention.h>
#include <poslsh/exact_attention.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace poslsh {

template <typename Scalar>
BandAttentionResult<Scalar> band_exact_attention(const ConstRowMatrixRef<Scalar>& q,
                                                 const ConstRowMatrixRef<Scalar>& k,
                                                 const ConstRowMatrixRef<Scalar>& v, double sigma,
                                                 Form form, const BandAttentionOptions& options) {
  validate_attention_shapes(q.rows(), q.cols(), k.rows(), k.cols(), v.rows(), v.cols());
  if (!std::isfinite(sigma) || !(sigma > 0))
    throw std::invalid_argument("sigma must be a finite number > 0");
  if (!(options.tol >= 0 && options.tol < 1))
    throw std::invalid_argument("--band-tol must be a number in [0, 1), got " +
                                std::to_string(options.tol));
  const Eigen::Index n = q.rows();
  const bool causal = form == Form::kCausal;
  const std::int64_t units = (n + kQueryTile - 1) / kQueryTile;
  BandAttentionResult<Scalar> result;
  result.skipped_mass = Eigen::VectorXd::Zero(n);
  result.row_bound = Eigen::VectorXd::Zero(n);
  result.tile_half_width.assign(static_cast<std::size_t>(units), n - 1);
  if (options.tol == 0) {  // dense exact: nothing left out
    result.output = exact_alibi_attention<Scalar>(q, k, v, sigma, form, options.attention);
    result.keys_per_query = causal ? (n + 1) / 2.0 : static_cast<double>(n);
    return result;
  }

  // Row-independent parts of the bound, in double and in the log domain.
  const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(q.cols()));
  const double k_max = k.template cast<double>().rowwise().norm().maxCoeff();
  // ln of the logit bound of each row: |q_i| max_j |k_j| / sqrt(d).
  const Eigen::VectorXd ln_logit_bound =
      q.template cast<double>().rowwise().norm() * (k_max * inv_sqrt_d);
  const Eigen::RowVectorXd v_max = v.template cast<double>().cwiseAbs().colwise().maxCoeff();
  // ln of c / (1 - e^{-1/sigma}); the tail is that times e^{-(w+1)/sigma}.
  const double ln_tail0 = (causal ? 0.0 : std::log(2.0)) - std::log(-std::expm1(-1.0 / sigma));
  const double ln_tol = std::log(options.tol);
  const auto narrow =
      std::min<std::int64_t>(n - 1, std::max<std::int64_t>(1, std::llround(std::ceil(2 * sigma))));

  const int workers =
      static_cast<int>(std::min<std::int64_t>(resolve_threads(options.attention.threads), units));
  std::vector<OnlineSoftmax<Scalar>> states;
  for (int w = 0; w < workers; ++w) states.emplace_back(kQueryTile, q.cols(), v.cols());
  result.output.resize(n, v.cols());
  std::vector<double> keys(static_cast<std::size_t>(units), 0.0);
  auto keys_visited = [&](Eigen::Index q0, Eigen::Index q1, std::int64_t w) {
    double total = 0;
    for (Eigen::Index i = q0; i < q1; ++i)
      total += static_cast<double>((causal ? i : std::min<Eigen::Index>(n - 1, i + w)) -
                                   std::max<Eigen::Index>(0, i - w) + 1);
    return total;
  };
  for_each_unit(units, workers, [&](std::int64_t unit, int worker) {
    const Eigen::Index q0 = unit * kQueryTile, q1 = std::min<Eigen::Index>(n, q0 + kQueryTile);
    auto& st = states[static_cast<std::size_t>(worker)];
    auto pass = [&](std::int64_t w) {
      st.reset(q0);
      const Eigen::Index k0 = std::max<Eigen::Index>(0, q0 - w);
      const Eigen::Index k1 = causal ? q1 : std::min<Eigen::Index>(n, q1 + w);
      st.accumulate(q, k, v, q0, q1, k0, k1, LogitRule{1.0 / sigma, causal, w});
      keys[static_cast<std::size_t>(unit)] += keys_visited(q0, q1, w);
    };
    auto ln_kept = [&](Eigen::Index r) {
      return static_cast<double>(st.row_max()[r]) + std::log(static_cast<double>(st.row_sum()[r]));
    };
    // Pass 1: the narrow band's mass bounds every wider band's from below.
    pass(narrow);
    std::int64_t w = narrow;
    for (Eigen::Index i = q0; i < q1; ++i) {
      // Smallest w with ln_logit_bound + ln_tail0 - (w+1)/sigma - ln_kept <= ln_tol.
      const double need = sigma * (ln_logit_bound[i] + ln_tail0 - ln_kept(i - q0) - ln_tol) - 1.0;
      if (!(need < static_cast<double>(n))) {  // (also NaN, e.g. an infinite logit bound)
        w = n - 1;
        break;
      }
      w = std::max<std::int64_t>(w, static_cast<std::int64_t>(std::ceil(need)));
    }
    w = std::min<std::int64_t>(w, n - 1);
    if (w > narrow) pass(w);
    st.write_output(result.output, q1 - q0);
    result.tile_half_width[static_cast<std::size_t>(unit)] = w;
    if (w >= n - 1) return;  // every key kept: exact
    for (Eigen::Index i = q0; i < q1; ++i) {
      const double r = std::exp(ln_logit_bound[i] + ln_tail0 - static_cast<double>(w + 1) / sigma -
                                ln_kept(i - q0));
      result.skipped_mass[i] = r;
      const double reach =
          (v_max + result.output.row(i).template cast<double>().cwiseAbs()).maxCoeff();
      result.row_bound[i] = r / (1 + r) * reach;
    }
  });
  double total = 0;
  for (double x : keys) total += x;
  result.keys_per_query = total / static_cast<double>(n);
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
