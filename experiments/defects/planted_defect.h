// Planted defects: the negative controls that show a check can fail. A
// planted defect is a sampler defect (experiments/defects/sampler_defect.h), or b_max
// inflated from the sigma ln ln n regime to sigma ln n (block-size tables of
// `poslsh power` only), or right hashes binned wrongly by their consumers
// (binning_defect.h: a shifted causal mask, float32 positions).
//
// `poslsh power` plants each one in turn; the experiments that draw hashes
// (convergence, blocksize, unbiasedness, attention, attention-length),
// `poslsh sample` and `poslsh reproduce` take one with --plant-defect, so
// that a whole reproduction, or a file for `poslsh verify`, can be made from
// a broken sampler and shown to FAIL.
#pragma once

#include <poslsh/hash_parameters.h>
#include <poslsh/positional_hash.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "experiments/defects/binning_defect.h"
#include "experiments/defects/estimator_defect.h"
#include "experiments/defects/sampler_defect.h"

namespace CLI {
class App;
}

namespace poslsh {

struct RecordedOptions;

// A bug in the batched drawer alone (draw_hashes below: what convergence,
// attention, the paths check and `poslsh sample` call, as the library's
// draw_hashes is what C++ and Python users call), the scalar draw_hash left
// sound: the law rows, which read hash by hash, see nothing, and the
// hash-law table's batched probe, which compares the two, must.
enum class BatchedBug {
  kNone,
  kSharedShift,  // "batched-shared-shift": groups of four hashes share hash 4j's shift fraction
};

struct PlantedDefect {
  SamplerDefect sampler = SamplerDefect::kNone;
  bool inflate_b_max = false;
  BinningBug binning_bug = BinningBug::kNone;
  EstimatorBug estimator_bug = EstimatorBug::kNone;
  BatchedBug batched_bug = BatchedBug::kNone;
  std::string name() const;
  bool sound() const {
    return sampler == SamplerDefect::kNone && !inflate_b_max && binning_bug == BinningBug::kNone &&
           estimator_bug == EstimatorBug::kNone && batched_bug == BatchedBug::kNone;
  }
};
// "sound", every sampler defect, "bmax-sigma-ln-n", "causal-mask-shift" and
// "float32-positions": what `poslsh power` measures.
std::vector<PlantedDefect> all_planted_defects();
// The estimator bugs (estimator_defect.h): planted in `poslsh attention` and
// attention-length only, where the estimator line must catch them; no power
// family computes attention, so `poslsh power` leaves them out.
std::vector<PlantedDefect> estimator_planted_defects();
// Throws InputError for an unknown name (listing the accepted ones).
PlantedDefect parse_planted_defect(const std::string& name);

// Hash k of (seed, trial) at sigma from the defect's sampler (the sound one
// for a defect that is not in the sampler).
HashDrawer hash_drawer(std::uint64_t seed, const PlantedDefect& defect);
// The first s hashes of (seed, trial) from the defect's sampler: the
// library's draw_hashes itself, what C++ and Python users call, for the sound
// one, and the planted sampler's hash-by-hash drawer otherwise. Checks
// nothing: a HashParameters is valid. The plain-number form builds one (the
// check, once, for callers that hold numbers).
std::vector<PositionalHash> draw_hashes(std::uint64_t seed, const PlantedDefect& defect,
                                        std::uint64_t trial, const HashParameters& hash);
std::vector<PositionalHash> draw_hashes(std::uint64_t seed, const PlantedDefect& defect,
                                        std::uint64_t trial, std::int64_t s, double sigma);
// That batched drawer as a function of (trial, s, sigma), for the tables
// that compare it with the scalar one (hash-law's batched probe).
using BatchedDrawer =
    std::function<std::vector<PositionalHash>(std::uint64_t trial, std::int64_t s, double sigma)>;
BatchedDrawer batched_drawer(std::uint64_t seed, const PlantedDefect& defect);
// A HashDrawer that reads every hash from a batched drawer: hash k of a trial
// is element k of batched(trial, s, sigma) for some s > k (batches kept per
// (trial, sigma), grown by doubling), so a table drawn hash by hash reads
// what users call. For streams of moderate indices (unbiasedness's); not
// thread-safe: one per cell.
HashDrawer drawer_from_batches(BatchedDrawer batched);
// The blocks the library cuts from a hash (block_starts, with the defect's
// binning bug planted where it applies to the symmetric form).
using BlockCutter = std::function<std::vector<std::int64_t>(const PositionalHash& h, std::int64_t n)>;
BlockCutter block_cutter(const PlantedDefect& defect);
// The first s hashes of a trial from a drawer: draw_hashes(seed, trial, s, sigma) for the
// sound sampler. Checks nothing: the caller checked s and sigma, or holds
// them in a HashParameters (the second form).
std::vector<PositionalHash> draw_hashes(const HashDrawer& draw, std::uint64_t trial, std::int64_t s,
                                        double sigma);
std::vector<PositionalHash> draw_hashes(const HashDrawer& draw, std::uint64_t trial,
                                        const HashParameters& hash);

// --plant-defect NAME of a command that draws hashes. Every name but
// bmax-sigma-ln-n (a change to a finished table, not to a sampler) is
// accepted; the binning bugs change only what binning code a command runs
// (the co-binning of `poslsh unbiasedness`; one-based-bins, a bug in the
// library's blocks, also hash-law's blocks probe, attention's masks and
// `sample --blocks`), the estimator bugs only the estimator of `poslsh
// attention`, the batched bug only the batched drawer; the rest is drawn
// soundly.
class PlantDefectOption {
 public:
  void declare(CLI::App& command);
  // Checks the name (UsageError naming --plant-defect for one not accepted)
  // and keeps the defect it names.
  const PlantedDefect& resolve();
  // The defect resolve() kept.
  const PlantedDefect& defect() const { return defect_; }
  // Leaves --plant-defect out of the recorded config when it is sound: a
  // sound run's sidecar is the one it had before --plant-defect existed.
  void record(const CLI::App& command, RecordedOptions& recorded) const;

 private:
  std::string name_ = "sound";
  PlantedDefect defect_;
};
// The names --plant-defect accepts, in all_planted_defects() order.
std::vector<std::string> plantable_defect_names();

}  // namespace poslsh
