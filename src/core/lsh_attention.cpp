#include <poslsh/lsh_attention.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace poslsh {

template <typename Scalar>
RowMatrix<Scalar> lsh_attention(const ConstRowMatrixRef<Scalar>& q,
                                const ConstRowMatrixRef<Scalar>& k,
                                const ConstRowMatrixRef<Scalar>& v, const MaskMean& mask,
                                const AttentionOptions& options) {
  validate_attention_shapes(q.rows(), q.cols(), k.rows(), k.cols(), v.rows(), v.cols());
  const Eigen::Index n = q.rows();
  if (mask.rows() != n)
    throw std::invalid_argument("lsh_attention: the mask has n = " + std::to_string(mask.rows()) +
                                " but q, k, v have " + std::to_string(n) + " rows");
  const bool causal = mask.form() == Form::kCausal;
  const LogitRule rule{0.0, causal, -1};
  const std::int64_t units = (n + kLshRowChunk - 1) / kLshRowChunk;
  const int workers =
      static_cast<int>(std::min<std::int64_t>(resolve_threads(options.threads), units));
  std::vector<OnlineSoftmax<Scalar>> states;
  for (int w = 0; w < workers; ++w) states.emplace_back(kLshRowChunk, q.cols(), v.cols());
  RowMatrix<Scalar> out(n, v.cols());
  for_each_unit(units, workers, [&](std::int64_t unit, int worker) {
    const Eigen::Index c0 = unit * kLshRowChunk, c1 = std::min<Eigen::Index>(n, c0 + kLshRowChunk);
    auto& st = states[static_cast<std::size_t>(worker)];
    st.reset(c0);
    // Hashes in order, then blocks in order: each row sees the same sequence
    // of key tiles whichever chunk layout or thread runs it.
    for (std::int64_t h = 0; h < mask.num_hashes(); ++h) {
      const auto starts = mask.blocks(h);
      // First block whose end exceeds c0.
      auto it = std::upper_bound(starts.begin(), starts.end(), static_cast<std::int64_t>(c0));
      for (std::size_t b = static_cast<std::size_t>(it - starts.begin()) - 1;
           b + 1 < starts.size() && starts[b] < c1; ++b) {
        const Eigen::Index a = starts[b], e = starts[b + 1];
        const Eigen::Index r0 = std::max(a, c0), r1 = std::min(e, c1);
        st.accumulate(q, k, v, r0, r1, a, causal ? r1 : e, rule);
      }
    }
    st.write_output(out, c1 - c0);
  });
  return out;
}

template <typename Scalar>
HeadStack<Scalar> lsh_attention(const HeadStack<Scalar>& q, const HeadStack<Scalar>& k,
                                const HeadStack<Scalar>& v, std::span<const MaskMean> masks,
                                const AttentionOptions& options) {
  const auto heads = static_cast<std::int64_t>(masks.size());
  if (heads < 1) throw std::invalid_argument("multi-head LSH attention needs at least one mask");
  validate_head_stacks(q, k, v, heads);
  HeadStack<Scalar> out{heads, RowMatrix<Scalar>(heads * q.n(), v.d())};
  for (std::int64_t h = 0; h < heads; ++h)
    out.head(h) = lsh_attention<Scalar>(q.head(h), k.head(h), v.head(h),
                                        masks[static_cast<std::size_t>(h)], options);
  return out;
}

double lsh_keys_per_query(const MaskMean& mask) {
  double pairs = 0.0;
  for (std::int64_t h = 0; h < mask.num_hashes(); ++h) {
    const auto st = mask.blocks(h);
    for (std::size_t b = 0; b + 1 < st.size(); ++b) {
      const double len = static_cast<double>(st[b + 1] - st[b]);
      pairs += mask.form() == Form::kCausal ? len * (len + 1) / 2 : len * len;
    }
  }
  return pairs / static_cast<double>(mask.rows());
}

template RowMatrix<float> lsh_attention<float>(const ConstRowMatrixRef<float>&,
                                               const ConstRowMatrixRef<float>&,
                                               const ConstRowMatrixRef<float>&, const MaskMean&,
                                               const AttentionOptions&);
template RowMatrix<double> lsh_attention<double>(const ConstRowMatrixRef<double>&,
                                                 const ConstRowMatrixRef<double>&,
                                                 const ConstRowMatrixRef<double>&, const MaskMean&,
                                                 const AttentionOptions&);
template HeadStack<float> lsh_attention<float>(const HeadStack<float>&, const HeadStack<float>&,
                                               const HeadStack<float>&, std::span<const MaskMean>,
                                               const AttentionOptions&);
template HeadStack<double> lsh_attention<double>(const HeadStack<double>&, const HeadStack<double>&,
                                                 const HeadStack<double>&,
                                                 std::span<const MaskMean>,
                                                 const AttentionOptions&);

}  // namespace poslsh
