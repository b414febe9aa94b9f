#include "experiments/defects/binning_defect.h"

#include <algorithm>

namespace poslsh {

std::string binning_bug_name(BinningBug bug) {
  switch (bug) {
    case BinningBug::kNone:
      return "sound";
    case BinningBug::kCausalMaskShift:
      return "causal-mask-shift";
    case BinningBug::kFloat32Positions:
      return "float32-positions";
    case BinningBug::kOneBasedBins:
      return "one-based-bins";
  }
  return "?";
}

std::vector<std::int64_t> consumer_block_starts(const PositionalHash& h, std::int64_t n, Form form,
                                                BinningBug bug) {
  if (bug == BinningBug::kOneBasedBins) {
    // Position i binned as i + 1: a block starts at i wherever one starts at
    // i + 1, for every i + 1 <= n (so the blocks of [0, n] are cut first).
    std::vector<std::int64_t> starts = {0};
    for (const std::int64_t s : block_starts(h, n + 1))
      if (s >= 2 && s <= n) starts.push_back(s - 1);
    starts.push_back(n);
    return starts;
  }
  std::vector<std::int64_t> starts = block_starts(h, n);
  if (form == Form::kCausal && bug == BinningBug::kCausalMaskShift) {
    // Every start but 0 and n one position later; a block that vanishes merges.
    for (std::size_t b = 1; b + 1 < starts.size(); ++b) ++starts[b];
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  }
  return starts;
}

}  // namespace poslsh
