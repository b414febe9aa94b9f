#include <poslsh/argument_error.h>
#include <poslsh/baseline_attention.h>
#include <poslsh/lsh_attention.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include "internal/attention_work.h"
#include "online_softmax.h"

namespace poslsh {

MaskMean fixed_block_mask(std::int64_t n, std::int64_t width, Form form) {
  check::at_least("width", width, 1);
  // bin(i) = floor(i / w) exactly: i and w are integers far below 2^53.
  const PositionalHash grid{static_cast<double>(width), 0.0};
  return MaskMean(n, std::span<const PositionalHash>(&grid, 1), form);
}

template <typename Scalar>
RowMatrix<Scalar> fixed_block_attention(const ConstRowMatrixRef<Scalar>& q,
                                        const ConstRowMatrixRef<Scalar>& k,
                                        const ConstRowMatrixRef<Scalar>& v, std::int64_t width,
                                        Form form, const AttentionOptions& options) {
  return lsh_attention<Scalar>(q, k, v, fixed_block_mask(q.rows(), width, form), options);
}

template <typename Scalar>
RowMatrix<Scalar> sliding_window_attention(const ConstRowMatrixRef<Scalar>& q,
                                           const ConstRowMatrixRef<Scalar>& k,
                                           const ConstRowMatrixRef<Scalar>& v, double sigma,
                                           std::int64_t half_width, Form form,
                                           const AttentionOptions& options) {
  validate_attention_shapes(q.rows(), q.cols(), k.rows(), k.cols(), v.rows(), v.cols());
  check::positive_finite("sigma", sigma);
  check::at_least("half_width", half_width, 0);
  const Eigen::Index n = q.rows();
  const bool causal = form == Form::kCausal;
  const detail::LogitRule rule{1.0 / sigma, causal, half_width};
  const std::int64_t units = (n + kQueryTile - 1) / kQueryTile;
  const int workers =
      static_cast<int>(std::min<std::int64_t>(resolve_threads(options.threads), units));
  std::vector<detail::OnlineSoftmax<Scalar>> states;
  for (int w = 0; w < workers; ++w) states.emplace_back(kQueryTile, q.cols(), v.cols());
  RowMatrix<Scalar> out(n, v.cols());
  for_each_unit(units, workers, [&](std::int64_t unit, int worker) {
    const Eigen::Index q0 = unit * kQueryTile, q1 = std::min<Eigen::Index>(n, q0 + kQueryTile);
    auto& st = states[static_cast<std::size_t>(worker)];
    st.reset(q0);
    const Eigen::Index k0 = std::max<Eigen::Index>(0, q0 - half_width);
    const Eigen::Index k1 = causal ? q1 : std::min<Eigen::Index>(n, q1 + half_width);
    st.accumulate(q, k, v, q0, q1, k0, k1, rule);
    st.write_output(out, q1 - q0);
  });
  return out;
}

double window_keys_per_query(std::int64_t n, std::int64_t half_width, Form form) {
  double total = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t lo = std::max<std::int64_t>(0, i - half_width);
    const std::int64_t hi = form == Form::kCausal ? i : std::min(n - 1, i + half_width);
    total += static_cast<double>(hi - lo + 1);
  }
  return total / static_cast<double>(n);
}

std::int64_t equal_cost_half_width(double keys_per_query, Form form) {
  const double w = form == Form::kCausal ? keys_per_query - 1 : (keys_per_query - 1) / 2;
  return std::max<std::int64_t>(0, std::llround(w));
}

#define POSLSH_INSTANTIATE(S)                                                                \
  template RowMatrix<S> fixed_block_attention<S>(                                            \
      const ConstRowMatrixRef<S>&, const ConstRowMatrixRef<S>&, const ConstRowMatrixRef<S>&, \
      std::int64_t, Form, const AttentionOptions&);                                          \
  template RowMatrix<S> sliding_window_attention<S>(                                         \
      const ConstRowMatrixRef<S>&, const ConstRowMatrixRef<S>&, const ConstRowMatrixRef<S>&, \
      double, std::int64_t, Form, const AttentionOptions&);
POSLSH_INSTANTIATE(float)
POSLSH_INSTANTIATE(double)
#undef POSLSH_INSTANTIATE

}  // namespace poslsh
