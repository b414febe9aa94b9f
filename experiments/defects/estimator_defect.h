// Deliberately wrong estimators: the negative controls of the estimator line
// (estimator_probe.h) and of the paths line (attention_paths.h). Each is a
// bug a fast kernel could plausibly have, and each moves the tested and the
// control arm of the error-law lines alike, so that only a check of the
// estimator against its definition can see it.
//
// The first two act on the mask every lsh row uses. The last three act only
// on the paths the path probe calls (attention_paths.h), where a user's call
// goes and the table's float64 single-head rows never do: the float32
// kernels, the multi-head overloads, the last partial query tile.
#pragma once

#include <poslsh/mask_mean.h>
#include <poslsh/positional_hash.h>
#include <poslsh/types.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "experiments/defects/binning_defect.h"

namespace poslsh {

enum class EstimatorBug {
  kNone,
  kDropsAHash,       // the last of the s hashes is counted as a second copy of hash 0
  kKeyTileOffByOne,  // a block that crosses a key-tile edge (256) ends one position early
  // float32 kernels (exact, band, lsh) drop every weight below e^-7 of its
  // row's largest: a "denormal-safe" cut that float32 rounding (2^-24) does
  // not excuse
  kFloat32Flush,
  // the multi-head overloads (exact, lsh) give every head head 0's sigma
  // (lsh: head 0's mask), as a loop that indexes sigmas[0] would
  kMultiHeadFirstSigma,
  // the last query tile, when n is not a multiple of it (64 rows), is never
  // computed (units = n / tile instead of rounding up); its rows are left 0
  kPartialTileSkipped,
  // every path scales its logits by 1 / sqrt(dv), the value width, instead of
  // 1 / sqrt(d): invisible wherever dv = d
  kLogitScaleFromValueWidth,
  // the heads' scales are 2^(8h/H) for every H, not Press et al.'s
  // interleave: right for a power of two, wrong for H = 5 (the paths' H)
  kSlopeInterleave,
  // independent heads (independent_head_seed) all draw from the run's seed,
  // as code that forgets to key the stream by the head would
  kSharedHeadSeeds,
};

const std::vector<EstimatorBug>& all_estimator_bugs();  // every bug but kNone
std::string estimator_bug_name(EstimatorBug bug);       // "estimator-drops-a-hash", ...
// Whether the bug is in the mask (estimator_mask), so in every lsh row; the
// others are in the paths only (below).
bool estimator_bug_in_mask(EstimatorBug bug);

// The mask the estimator with `bug` computes with: MaskMean(n, hashes, form)
// when sound. BinningBug::kOneBasedBins, a bug in the library's blocks
// (binning_defect.h), is planted in it too: every consumer reads them.
MaskMean estimator_mask(std::int64_t n, std::span<const PositionalHash> hashes, Form form,
                        EstimatorBug bug, BinningBug binning = BinningBug::kNone);

// --- the paths (attention_paths.h) with a bug planted ---------------------

// The sigmas the multi-head exact overload is handed: head 0's for every
// head under kMultiHeadFirstSigma, `sigmas` otherwise.
std::vector<double> multi_head_sigmas(std::span<const double> sigmas, EstimatorBug bug);
// The masks the multi-head lsh overload is handed, likewise.
std::vector<MaskMean> multi_head_masks(std::vector<MaskMean> masks, EstimatorBug bug);

// Under kPartialTileSkipped, rows [tile * floor(n / tile), n) of every head of
// `out` (heads stacked, n rows each) set to 0, as an unwritten output that
// happened to be zeroed; nothing otherwise.
template <typename Scalar>
void skip_partial_tile(RowMatrix<Scalar>& out, std::int64_t n, EstimatorBug bug);

// The log prior weight log p_ij of key j for query i (-inf: j not attended):
// -|i - j| / sigma for ALiBi, log c_ij for lsh (attention_paths.h).
using LogPrior = std::function<double(std::int64_t i, std::int64_t j)>;
// kFloat32Flush's kernel: per row, float32 weights p_ij e^(q_i.k_j / sqrt d),
// every one below e^-7 of the row's largest set to 0, then the weighted mean
// of v. One head: q, k n x d, v n x dv.
RowMatrix<float> flushing_float32_attention(const ConstRowMatrixRef<float>& q,
                                            const ConstRowMatrixRef<float>& k,
                                            const ConstRowMatrixRef<float>& v,
                                            const LogPrior& prior);

}  // namespace poslsh
