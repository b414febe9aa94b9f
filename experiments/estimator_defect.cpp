#include "experiments/estimator_defect.h"

#include <poslsh/attention_options.h>

#include "internal/attention_work.h"

namespace poslsh {

const std::vector<EstimatorBug>& all_estimator_bugs() {
  static const std::vector<EstimatorBug> all = {EstimatorBug::kDropsAHash,
                                                EstimatorBug::kKeyTileOffByOne};
  return all;
}

std::string estimator_bug_name(EstimatorBug bug) {
  switch (bug) {
    case EstimatorBug::kNone:
      return "sound";
    case EstimatorBug::kDropsAHash:
      return "estimator-drops-a-hash";
    case EstimatorBug::kKeyTileOffByOne:
      return "estimator-key-tile-off-by-one";
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
                        EstimatorBug bug) {
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

}  // namespace poslsh
