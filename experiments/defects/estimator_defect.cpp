#include "experiments/defects/estimator_defect.h"

#include <poslsh/attention_options.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "internal/attention_work.h"

namespace poslsh {

const std::vector<EstimatorBug>& all_estimator_bugs() {
  static const std::vector<EstimatorBug> all = {
      EstimatorBug::kDropsAHash, EstimatorBug::kKeyTileOffByOne, EstimatorBug::kFloat32Flush,
      EstimatorBug::kMultiHeadFirstSigma, EstimatorBug::kPartialTileSkipped,
      EstimatorBug::kLogitScaleFromValueWidth, EstimatorBug::kSlopeInterleave,
      EstimatorBug::kSharedHeadSeeds};
  return all;
}

bool estimator_bug_in_mask(EstimatorBug bug) {
  return bug == EstimatorBug::kDropsAHash || bug == EstimatorBug::kKeyTileOffByOne;
}

std::string estimator_bug_name(EstimatorBug bug) {
  switch (bug) {
    case EstimatorBug::kNone:
      return "sound";
    case EstimatorBug::kDropsAHash:
      return "estimator-drops-a-hash";
    case EstimatorBug::kKeyTileOffByOne:
      return "estimator-key-tile-off-by-one";
    case EstimatorBug::kFloat32Flush:
      return "estimator-float32-flush";
    case EstimatorBug::kMultiHeadFirstSigma:
      return "estimator-multi-head-first-sigma";
    case EstimatorBug::kPartialTileSkipped:
      return "estimator-partial-tile-skipped";
    case EstimatorBug::kLogitScaleFromValueWidth:
      return "estimator-logit-scale-from-dv";
    case EstimatorBug::kSlopeInterleave:
      return "estimator-slope-interleave";
    case EstimatorBug::kSharedHeadSeeds:
      return "estimator-shared-head-seeds";
  }
  return "unknown";
}

namespace {

// Block starts of one hash with every block that crosses a key-tile edge
// ending one position early (its last position opens the next block).
std::vector<std::int64_t> tile_edge_off_by_one(std::vector<std::int64_t> starts) {
  for (std::size_t b = 1; b + 1 < starts.size(); ++b) {
    const std::int64_t first = starts[b - 1], end = starts[b];
    const bool crosses = first / kKeyTile != (end - 1) / kKeyTile;
    if (crosses && end - 1 > first) starts[b] = end - 1;
  }
  return starts;
}

}  // namespace

MaskMean estimator_mask(std::int64_t n, std::span<const PositionalHash> hashes, Form form,
                        EstimatorBug bug, BinningBug binning) {
  if (binning == BinningBug::kOneBasedBins) {
    std::vector<std::vector<std::int64_t>> partitions;
    for (const auto& h : hashes) partitions.push_back(consumer_block_starts(h, n, form, binning));
    return MaskMean(n, partitions, form);
  }
  if (bug == EstimatorBug::kDropsAHash && hashes.size() >= 2) {
    std::vector<PositionalHash> counted(hashes.begin(), hashes.end());
    counted.back() = counted.front();
    return MaskMean(n, counted, form);
  }
  if (bug == EstimatorBug::kKeyTileOffByOne) {
    std::vector<std::vector<std::int64_t>> partitions;
    for (const auto& h : hashes) partitions.push_back(tile_edge_off_by_one(block_starts(h, n)));
    return MaskMean(n, partitions, form);
  }
  return MaskMean(n, hashes, form);
}

std::vector<double> multi_head_sigmas(std::span<const double> sigmas, EstimatorBug bug) {
  if (bug == EstimatorBug::kMultiHeadFirstSigma && !sigmas.empty())
    return std::vector<double>(sigmas.size(), sigmas.front());
  return {sigmas.begin(), sigmas.end()};
}

std::vector<MaskMean> multi_head_masks(std::vector<MaskMean> masks, EstimatorBug bug) {
  if (bug == EstimatorBug::kMultiHeadFirstSigma && !masks.empty())
    return std::vector<MaskMean>(masks.size(), masks.front());
  return masks;
}

template <typename Scalar>
void skip_partial_tile(RowMatrix<Scalar>& out, std::int64_t n, EstimatorBug bug) {
  const std::int64_t full = n / kQueryTile * kQueryTile;
  if (bug != EstimatorBug::kPartialTileSkipped || full == n) return;
  for (std::int64_t h = 0; h < out.rows() / n; ++h) out.middleRows(h * n + full, n - full).setZero();
}
template void skip_partial_tile<float>(RowMatrix<float>&, std::int64_t, EstimatorBug);
template void skip_partial_tile<double>(RowMatrix<double>&, std::int64_t, EstimatorBug);

RowMatrix<float> flushing_float32_attention(const ConstRowMatrixRef<float>& q,
                                            const ConstRowMatrixRef<float>& k,
                                            const ConstRowMatrixRef<float>& v,
                                            const LogPrior& prior) {
  const std::int64_t n = q.rows();
  const float scale = 1.0f / std::sqrt(static_cast<float>(q.cols()));
  const float cut = std::exp(-7.0f);
  RowMatrix<float> out(n, v.cols());
  Eigen::VectorXf logit(n);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j)
      logit(j) = q.row(i).dot(k.row(j)) * scale + static_cast<float>(prior(i, j));
    const float top = logit.maxCoeff();
    Eigen::RowVectorXf num = Eigen::RowVectorXf::Zero(v.cols());
    float den = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const float w = std::exp(logit(j) - top);  // exp(-inf) = 0: a key not attended
      if (w < cut) continue;                     // the bug
      num += w * v.row(j);
      den += w;
    }
    out.row(i) = num / den;
  }
  return out;
}

}  // namespace poslsh
