// Deliberately wrong estimators: the negative controls of the estimator line
// (estimator_probe.h). Each is a bug a fast kernel could plausibly have, and
// each moves the tested and the control arm of the error-law lines alike, so
// that only a check of the estimator against its definition can see it.
#pragma once

#include <poslsh/mask_mean.h>
#include <poslsh/positional_hash.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace poslsh {

enum class EstimatorBug {
  kNone,
  kDropsAHash,       // the last of the s hashes is counted as a second copy of hash 0
  kKeyTileOffByOne,  // a block that crosses a key-tile edge (256) ends one position early
};

const std::vector<EstimatorBug>& all_estimator_bugs();  // every bug but kNone
std::string estimator_bug_name(EstimatorBug bug);       // "estimator-drops-a-hash", ...

// The mask the estimator with `bug` computes with: MaskMean(n, hashes, form)
// when sound.
MaskMean estimator_mask(std::int64_t n, std::span<const PositionalHash> hashes, Form form,
                        EstimatorBug bug);

}  // namespace poslsh
