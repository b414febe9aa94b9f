#include "experiments/defects/planted_defect.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poslsh/input_error.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>
#include <memory>

#include "runner/cli_common.h"
#include "runner/resolved_config.h"

namespace poslsh {

std::string PlantedDefect::name() const {
  if (inflate_b_max) return "bmax-sigma-ln-n";
  if (batched_bug == BatchedBug::kSharedShift) return "batched-shared-shift";
  if (binning_bug != BinningBug::kNone) return binning_bug_name(binning_bug);
  if (estimator_bug != EstimatorBug::kNone) return estimator_bug_name(estimator_bug);
  return sampler_defect_name(sampler);
}

std::vector<PlantedDefect> all_planted_defects() {
  std::vector<PlantedDefect> all = {{SamplerDefect::kNone, false}};
  for (const auto d : all_sampler_defects()) all.push_back({d, false});
  all.push_back({SamplerDefect::kNone, true});
  all.push_back({SamplerDefect::kNone, false, BinningBug::kCausalMaskShift});
  all.push_back({SamplerDefect::kNone, false, BinningBug::kFloat32Positions});
  all.push_back({SamplerDefect::kNone, false, BinningBug::kOneBasedBins});
  all.push_back({.batched_bug = BatchedBug::kSharedShift});
  return all;
}

std::vector<PlantedDefect> estimator_planted_defects() {
  std::vector<PlantedDefect> all;
  for (const auto bug : all_estimator_bugs())
    all.push_back({SamplerDefect::kNone, false, BinningBug::kNone, bug});
  return all;
}

namespace {

std::vector<PlantedDefect> every_planted_defect() {
  auto all = all_planted_defects();
  for (const auto& d : estimator_planted_defects()) all.push_back(d);
  return all;
}

}  // namespace

PlantedDefect parse_planted_defect(const std::string& name) {
  std::string accepted;
  for (const auto& d : every_planted_defect()) {
    if (d.name() == name) return d;
    accepted += (accepted.empty() ? "" : ", ") + d.name();
  }
  throw InputError(fmt::format("unknown defect '{}' (accepted: {})", name, accepted));
}

HashDrawer hash_drawer(std::uint64_t seed, const PlantedDefect& defect) {
  return hash_drawer(seed, defect.sampler);
}

std::vector<PositionalHash> draw_hashes(const HashDrawer& draw, std::uint64_t trial, std::int64_t s,
                                        double sigma) {
  std::vector<PositionalHash> hashes;
  hashes.reserve(static_cast<std::size_t>(s));
  for (std::int64_t k = 0; k < s; ++k)
    hashes.push_back(draw(trial, static_cast<std::uint64_t>(k), sigma));
  return hashes;
}

namespace {

// BatchedBug::kSharedShift: hash k keeps its pitch and takes the shift
// fraction (shift / pitch) of hash 4 floor(k / 4).
void share_shift_fractions(std::vector<PositionalHash>& hashes) {
  for (std::size_t k = 0; k < hashes.size(); ++k) {
    const PositionalHash& leader = hashes[k & ~std::size_t{3}];
    hashes[k].shift = hashes[k].pitch * (leader.shift / leader.pitch);
  }
}

}  // namespace

std::vector<PositionalHash> draw_hashes(std::uint64_t seed, const PlantedDefect& defect,
                                        std::uint64_t trial, const HashParameters& hash) {
  auto hashes = defect.sampler == SamplerDefect::kNone
                    ? poslsh::draw_hashes(seed, trial, hash)
                    : draw_hashes(hash_drawer(seed, defect), trial, hash);
  if (defect.batched_bug == BatchedBug::kSharedShift) share_shift_fractions(hashes);
  return hashes;
}

std::vector<PositionalHash> draw_hashes(std::uint64_t seed, const PlantedDefect& defect,
                                        std::uint64_t trial, std::int64_t s, double sigma) {
  return draw_hashes(seed, defect, trial, HashParameters(1, sigma, s));
}

BlockCutter block_cutter(const PlantedDefect& defect) {
  return [bug = defect.binning_bug](const PositionalHash& h, std::int64_t n) {
    return consumer_block_starts(h, n, Form::kSymmetric, bug);
  };
}

HashDrawer drawer_from_batches(BatchedDrawer batched) {
  using Key = std::pair<std::uint64_t, double>;
  auto kept = std::make_shared<std::map<Key, std::vector<PositionalHash>>>();
  return [batched = std::move(batched), kept](std::uint64_t trial, std::uint64_t k, double sigma) {
    auto& batch = (*kept)[{trial, sigma}];
    if (k >= batch.size())
      batch = batched(trial, static_cast<std::int64_t>(std::max<std::uint64_t>(k + 1, 2 * batch.size())),
                      sigma);
    return batch[k];
  };
}

BatchedDrawer batched_drawer(std::uint64_t seed, const PlantedDefect& defect) {
  return [seed, defect](std::uint64_t trial, std::int64_t s, double sigma) {
    return draw_hashes(seed, defect, trial, s, sigma);
  };
}

std::vector<PositionalHash> draw_hashes(const HashDrawer& draw, std::uint64_t trial,
                                        const HashParameters& hash) {
  return draw_hashes(draw, trial, hash.s(), hash.sigma());
}

std::vector<std::string> plantable_defect_names() {
  std::vector<std::string> names;
  for (const auto& d : every_planted_defect())
    if (!d.inflate_b_max) names.push_back(d.name());
  return names;
}

void PlantDefectOption::declare(CLI::App& command) {
  command
      .add_option("--plant-defect", name_,
                  "A negative control: draw from this deliberately wrong sampler (or bin with "
                  "this consumer bug) so that the checks can be seen to FAIL; 'sound' is the "
                  "real sampler (docs/checks.md, What the checks can and cannot detect)")
      ->capture_default_str();
}

void PlantDefectOption::record(const CLI::App& command, RecordedOptions& recorded) const {
  if (!option_given(command, "plant-defect", "sound")) recorded.omitted.insert("plant-defect");
}

const PlantedDefect& PlantDefectOption::resolve() {
  const auto names = plantable_defect_names();
  if (std::find(names.begin(), names.end(), name_) == names.end())
    throw UsageError(
        fmt::format("--plant-defect must be one of {}, got '{}'", fmt::join(names, ", "), name_));
  defect_ = parse_planted_defect(name_);
  return defect_;
}

}  // namespace poslsh
