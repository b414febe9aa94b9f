#include "experiments/unbiasedness/consumer_cobinning.h"

#include <poslsh/lsh_attention.h>
#include <poslsh/mask_mean.h>

#include <algorithm>
#include <stdexcept>

namespace poslsh {

const std::vector<CobinConsumer>& all_cobin_consumers() {
  static const std::vector<CobinConsumer> all = {CobinConsumer::kMask, CobinConsumer::kMaskCausal,
                                                 CobinConsumer::kAttention,
                                                 CobinConsumer::kAttentionCausal};
  return all;
}

std::string cobin_consumer_name(CobinConsumer consumer) {
  switch (consumer) {
    case CobinConsumer::kMask:
      return "mask";
    case CobinConsumer::kMaskCausal:
      return "mask-causal";
    case CobinConsumer::kAttention:
      return "attention";
    case CobinConsumer::kAttentionCausal:
      return "attention-causal";
  }
  return "?";
}

std::int64_t consumer_probe_n(std::int64_t n) { return std::min<std::int64_t>(n, 256); }

namespace consumer_probes {

// The one-hash mask a consumer reads, with the planted bug where it applies.
MaskMean probe_mask(const PositionalHash& h, std::int64_t n, Form form, BinningBug bug) {
  const std::vector<std::vector<std::int64_t>> partitions = {
      consumer_block_starts(h, n, form, bug)};
  return MaskMean(n, partitions, form);
}

// The anchors' positions: start, middle, end.
std::array<std::int64_t, 3> anchors(std::int64_t n) {
  return {cobin_anchor(CobinRegion::kStart, n), cobin_anchor(CobinRegion::kMiddle, n),
          cobin_anchor(CobinRegion::kEnd, n)};
}

std::array<std::vector<bool>, 3> mask_cobinned(const MaskMean& mask, std::int64_t n,
                                               const std::vector<std::int64_t>& offsets) {
  const auto a = anchors(n);
  std::array<std::vector<bool>, 3> out;
  std::vector<double> x(static_cast<std::size_t>(n), 0.0), y(static_cast<std::size_t>(n));
  const auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };
  for (int r = 0; r < 2; ++r) {  // forward anchors: column a, entries a + t
    x[at(a[r])] = 1;
    mask.perform_op(x.data(), y.data());
    x[at(a[r])] = 0;
    for (const auto t : offsets) out[r].push_back(y[at(a[r] + t)] > 0);
  }
  if (mask.form() == Form::kSymmetric) {  // end anchor: column a, entries a - t
    x[at(a[2])] = 1;
    mask.perform_op(x.data(), y.data());
    for (const auto t : offsets) out[2].push_back(y[at(a[2] - t)] > 0);
    return out;
  }
  for (const auto t : offsets) {  // causal end anchor: row a, one column a - t at a time
    x[at(a[2] - t)] = 1;
    mask.perform_op(x.data(), y.data());
    x[at(a[2] - t)] = 0;
    out[2].push_back(y[at(a[2])] > 0);
  }
  return out;
}

std::array<std::vector<bool>, 3> attention_cobinned(const MaskMean& mask, std::int64_t n,
                                                    const std::vector<std::int64_t>& offsets) {
  const auto a = anchors(n);
  const auto cols = static_cast<Eigen::Index>(2 + offsets.size());
  // q = k = 0: every attended key weighs the same (> 0), every other key 0.
  const RowMatrix<double> qk = RowMatrix<double>::Zero(n, 1);
  RowMatrix<double> v = RowMatrix<double>::Zero(n, cols);
  v(a[0], 0) = 1;
  v(a[1], 1) = 1;
  for (std::size_t j = 0; j < offsets.size(); ++j)
    v(a[2] - offsets[j], static_cast<Eigen::Index>(2 + j)) = 1;
  const RowMatrix<double> out = lsh_attention<double>(qk, qk, v, mask);
  std::array<std::vector<bool>, 3> co;
  for (std::size_t j = 0; j < offsets.size(); ++j) {
    co[0].push_back(out(a[0] + offsets[j], 0) > 0);  // query a + t attends key a
    co[1].push_back(out(a[1] + offsets[j], 1) > 0);
    co[2].push_back(out(a[2], static_cast<Eigen::Index>(2 + j)) > 0);  // query a attends a - t
  }
  return co;
}

}  // namespace consumer_probes

std::array<std::vector<bool>, 3> consumer_cobinned(CobinConsumer consumer, const PositionalHash& h,
                                                   std::int64_t n,
                                                   const std::vector<std::int64_t>& offsets,
                                                   BinningBug bug) {
  using namespace consumer_probes;
  for (const auto t : offsets)
    if (t < 1 || t > n / 2 - 1)
      throw std::logic_error("consumer co-binning: offsets must be in [1, n / 2 - 1]");
  const bool causal =
      consumer == CobinConsumer::kMaskCausal || consumer == CobinConsumer::kAttentionCausal;
  const MaskMean mask = probe_mask(h, n, causal ? Form::kCausal : Form::kSymmetric, bug);
  if (consumer == CobinConsumer::kMask || consumer == CobinConsumer::kMaskCausal)
    return mask_cobinned(mask, n, offsets);
  return attention_cobinned(mask, n, offsets);
}

}  // namespace poslsh
