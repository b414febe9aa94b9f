#include <poslsh/argument_error.h>
#include <poslsh/exact_attention.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "head_stacks.h"
#include "internal/attention_work.h"
#include "online_softmax.h"

namespace poslsh {

void validate_attention_shapes(Eigen::Index q_rows, Eigen::Index q_cols, Eigen::Index k_rows,
                               Eigen::Index k_cols, Eigen::Index v_rows, Eigen::Index v_cols) {
  if (q_rows < 1) throw InputError("attention needs n >= 1 query rows");
  if (q_cols < 1 || v_cols < 1) throw InputError("attention needs d >= 1 columns");
  if (k_rows != q_rows || v_rows != q_rows)
    throw InputError("q, k and v must have the same number of rows n, got " +
                     std::to_string(q_rows) + ", " + std::to_string(k_rows) + ", " +
                     std::to_string(v_rows));
  if (k_cols != q_cols)
    throw InputError("q and k must have the same number of columns d, got " +
                     std::to_string(q_cols) + " and " + std::to_string(k_cols));
}

template <typename Scalar>
void detail::validate_head_stacks(const HeadStack<Scalar>& q, const HeadStack<Scalar>& k,
                                  const HeadStack<Scalar>& v, std::int64_t heads) {
  for (const auto* s : {&q, &k, &v}) {
    if (s->heads != 1 && s->heads != heads)
      throw InputError("each of q, k, v must have 1 head (shared) or " + std::to_string(heads) +
                       " heads, got " + std::to_string(s->heads));
    if (s->heads < 1 || s->data.rows() % s->heads != 0)
      throw std::logic_error("head stack rows must be a multiple of its head count");
  }
  validate_attention_shapes(q.n(), q.d(), k.n(), k.d(), v.n(), v.d());
}

template <typename Scalar>
RowMatrix<Scalar> exact_alibi_attention(const ConstRowMatrixRef<Scalar>& q,
                                        const ConstRowMatrixRef<Scalar>& k,
                                        const ConstRowMatrixRef<Scalar>& v, double sigma, Form form,
                                        const AttentionOptions& options, SoftmaxRowStats* stats) {
  validate_attention_shapes(q.rows(), q.cols(), k.rows(), k.cols(), v.rows(), v.cols());
  check::positive_finite("sigma", sigma);
  const Eigen::Index n = q.rows();
  const std::int64_t units = (n + kQueryTile - 1) / kQueryTile;
  const int workers = std::min<std::int64_t>(resolve_threads(options.threads), units);
  std::vector<detail::OnlineSoftmax<Scalar>> states;
  for (int w = 0; w < workers; ++w) states.emplace_back(kQueryTile, q.cols(), v.cols());
  std::vector<Scalar> beta(static_cast<std::size_t>(workers), Scalar(0));
  RowMatrix<Scalar> out(n, v.cols());
  if (stats) {
    stats->row_max.resize(n);
    stats->row_sum.resize(n);
  }
  const detail::LogitRule rule{1.0 / sigma, form == Form::kCausal, -1};
  for_each_unit(units, workers, [&](std::int64_t unit, int worker) {
    const Eigen::Index q0 = unit * kQueryTile, q1 = std::min<Eigen::Index>(n, q0 + kQueryTile);
    auto& st = states[static_cast<std::size_t>(worker)];
    st.reset(q0);
    st.track_max_abs_logit(stats != nullptr);
    st.accumulate(q, k, v, q0, q1, 0, form == Form::kCausal ? q1 : n, rule);
    st.write_output(out, q1 - q0);
    if (stats) {
      for (Eigen::Index r = 0; r < q1 - q0; ++r) {
        stats->row_max[q0 + r] = static_cast<double>(st.row_max()[r]);
        stats->row_sum[q0 + r] = static_cast<double>(st.row_sum()[r]);
      }
      beta[static_cast<std::size_t>(worker)] =
          std::max(beta[static_cast<std::size_t>(worker)], st.max_abs_logit());
    }
  });
  if (stats) {
    stats->max_abs_logit = 0.0;
    for (Scalar b : beta) stats->max_abs_logit = std::max(stats->max_abs_logit, double(b));
  }
  return out;
}

template <typename Scalar>
HeadStack<Scalar> exact_alibi_attention(const HeadStack<Scalar>& q, const HeadStack<Scalar>& k,
                                        const HeadStack<Scalar>& v, std::span<const double> sigmas,
                                        Form form, const AttentionOptions& options) {
  const auto heads = static_cast<std::int64_t>(sigmas.size());
  if (heads < 1) throw std::logic_error("multi-head attention needs at least one sigma");
  detail::validate_head_stacks(q, k, v, heads);
  HeadStack<Scalar> out{heads, RowMatrix<Scalar>(heads * q.n(), v.d())};
  for (std::int64_t h = 0; h < heads; ++h)
    out.head(h) = exact_alibi_attention<Scalar>(q.head(h), k.head(h), v.head(h),
                                                sigmas[static_cast<std::size_t>(h)], form, options);
  return out;
}

double exact_attention_flops(std::int64_t n, std::int64_t d, Form form) {
  const double nn = static_cast<double>(n);
  const double pairs = form == Form::kCausal ? nn * (nn + 1) / 2 : nn * nn;
  return 4.0 * pairs * static_cast<double>(d);
}

#define POSLSH_INSTANTIATE(S)                                                                  \
  template void detail::validate_head_stacks<S>(const HeadStack<S>&, const HeadStack<S>&,      \
                                                const HeadStack<S>&, std::int64_t);            \
  template RowMatrix<S> exact_alibi_attention<S>(                                              \
      const ConstRowMatrixRef<S>&, const ConstRowMatrixRef<S>&, const ConstRowMatrixRef<S>&,   \
      double, Form, const AttentionOptions&, SoftmaxRowStats*);                                \
  template HeadStack<S> exact_alibi_attention<S>(const HeadStack<S>&, const HeadStack<S>&,     \
                                                 const HeadStack<S>&, std::span<const double>, \
                                                 Form, const AttentionOptions&);
POSLSH_INSTANTIATE(float)
POSLSH_INSTANTIATE(double)
#undef POSLSH_INSTANTIATE

}  // namespace poslsh
