// Planted defects: the negative controls that show a check can fail. A
// planted defect is a sampler defect (experiments/sampler_defect.h), or b_max
// inflated from the sigma ln ln n regime to sigma ln n (block-size tables of
// `poslsh power` only), or right hashes binned wrongly by their consumers
// (consumer_cobinning.h: a shifted causal mask, float32 positions).
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
#include <string>
#include <vector>

#include "experiments/consumer_cobinning.h"
#include "experiments/estimator_defect.h"
#include "experiments/sampler_defect.h"

namespace CLI {
class App;
}

namespace poslsh {

struct RecordedOptions;

struct PlantedDefect {
  SamplerDefect sampler = SamplerDefect::kNone;
  bool inflate_b_max = false;
  BinningBug binning_bug = BinningBug::kNone;
  EstimatorBug estimator_bug = EstimatorBug::kNone;
  std::string name() const;
  bool sound() const {
    return sampler == SamplerDefect::kNone && !inflate_b_max && binning_bug == BinningBug::kNone &&
           estimator_bug == EstimatorBug::kNone;
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
// nothing (the caller checked s and sigma).
std::vector<PositionalHash> draw_hashes(std::uint64_t seed, const PlantedDefect& defect,
                                        std::uint64_t trial, std::int64_t s, double sigma);
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
// (the co-binning of `poslsh unbiasedness`), the estimator bugs only the
// estimator of `poslsh attention`; the rest is drawn soundly.
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
