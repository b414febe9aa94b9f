#include "experiments/hash_law/hash_law.h"

#include <fmt/format.h>
#include <poslsh/argument_error.h>
#include <poslsh/input_error.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/block_size.h>
#include <poslsh/pitch_law.h>
#include <poslsh/rng.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <memory>

#include "experiments/experiment.h"
#include "experiments/unbiasedness/cobinning.h"
#include "experiments/defects/planted_defect.h"
#include "experiments/oracles/reference_blocks.h"
#include "runner/cli_common.h"
#include "runner/swept_experiment.h"
#include "runner/validators.h"

namespace poslsh {

const std::vector<std::string>& hash_law_columns() {
  static const std::vector<std::string> columns = {"sigma", "probe",  "key",     "statistic",
                                                   "hashes", "count", "expected"};
  return columns;
}

std::uint64_t span_base(std::int64_t i) {
  return i == 0 ? 0 : mix64(0x243f6a8885a308d3ULL + static_cast<std::uint64_t>(i));
}

namespace hash_law_stats {

// A statistic of one hash: its name in the table and its probability under
// the sound law. Cuts are in units of sigma (pitch) or of the pitch (shift).
struct Statistic {
  enum Kind { kPitchBelow, kPitchAtLeast, kShiftBelow } kind;
  double cut;
  std::string name() const {
    const char* prefix = kind == kPitchBelow ? "pitch<" : kind == kPitchAtLeast ? "pitch>=" : "shift<";
    return prefix + format_value(cut);
  }
  bool holds(const PositionalHash& h, double sigma) const {
    if (kind == kShiftBelow) return h.shift < cut * h.pitch;
    return (h.pitch < cut * sigma) == (kind == kPitchBelow);
  }
  double probability() const {
    if (kind == kShiftBelow) return cut;
    const PitchLaw unit(1.0);
    return kind == kPitchBelow ? cdf(unit, cut) : tail(unit, cut);
  }
};

// The bulk: quantiles of Gamma(2) near 0.09, 0.26, 0.59, 0.91 and the shift's
// quarters. Every defect of sampler_defect.h that is not confined to the tail
// moves one of them.
const std::vector<Statistic>& bulk_statistics() {
  static const std::vector<Statistic> all = {
      {Statistic::kPitchBelow, 0.5},  {Statistic::kPitchBelow, 1},    {Statistic::kPitchBelow, 2},
      {Statistic::kPitchBelow, 4},    {Statistic::kShiftBelow, 0.25}, {Statistic::kShiftBelow, 0.5},
      {Statistic::kShiftBelow, 0.75}};
  return all;
}

// The tail: P(pitch >= c sigma) from 3e-3 (c = 8) to 1.9e-6 (c = 16); 15
// (4.9e-6) so that a clamp or cap at 14 leaves a cut with mass above it.
const std::vector<Statistic>& tail_statistics() {
  static const std::vector<Statistic> all = {
      {Statistic::kPitchAtLeast, 8},  {Statistic::kPitchAtLeast, 10}, {Statistic::kPitchAtLeast, 12},
      {Statistic::kPitchAtLeast, 14}, {Statistic::kPitchAtLeast, 15}, {Statistic::kPitchAtLeast, 16}};
  return all;
}

// The probability of a statistic named in a table; false for an unknown name.
bool statistic_probability(const std::string& name, double& p) {
  if (name == "equal" || name == "unequal") return p = 0, true;
  for (const auto* set : {&bulk_statistics(), &tail_statistics()})
    for (const auto& s : *set)
      if (s.name() == name) return p = s.probability(), true;
  return false;
}

}  // namespace hash_law_stats

bool hash_law_statistic_probability(const std::string& name, double& p) {
  return hash_law_stats::statistic_probability(name, p);
}

namespace hash_law_cells {

using hash_law_stats::Statistic;
using Row = std::vector<std::string>;

Row count_row(double sigma, const std::string& probe, std::int64_t key, const std::string& stat,
              std::int64_t hashes, std::int64_t count, double p) {
  return {format_value(sigma),    probe,
          std::to_string(key),    stat,
          std::to_string(hashes), std::to_string(count),
          format_value(static_cast<double>(hashes) * p)};
}

// Counts of `stats` over a set of hashes.
struct Counts {
  std::vector<std::int64_t> n;
  std::int64_t hashes = 0;
  explicit Counts(std::size_t stats = 0) : n(stats, 0) {}
  void add(const std::vector<Statistic>& stats, const PositionalHash& h, double sigma) {
    for (std::size_t j = 0; j < stats.size(); ++j) n[j] += stats[j].holds(h, sigma);
    ++hashes;
  }
  void add(const Counts& other) {
    for (std::size_t j = 0; j < n.size(); ++j) n[j] += other.n[j];
    hashes += other.hashes;
  }
  void append_rows(std::vector<Row>& rows, double sigma, const std::string& probe,
                   std::int64_t key, const std::vector<Statistic>& stats) const {
    for (std::size_t j = 0; j < stats.size(); ++j)
      rows.push_back(count_row(sigma, probe, key, stats[j].name(), hashes, n[j],
                               stats[j].probability()));
  }
};

// The (pitch, shift) bits of the hashes the duplicate search reads.
using HashBits = std::pair<std::uint64_t, std::uint64_t>;
HashBits bits_of(const PositionalHash& h) {
  return {std::bit_cast<std::uint64_t>(h.pitch), std::bit_cast<std::uint64_t>(h.shift)};
}

std::uint64_t first_trial(std::int64_t cell, const HashLawSizes& z) {
  return static_cast<std::uint64_t>(cell) * static_cast<std::uint64_t>(z.trials);
}

// The grid's bulk counts are the indices' summed, not counted again. Every
// hash drawn goes to `bits` when given.
void index_and_grid_rows(double sigma, std::int64_t cell, const HashLawSizes& z,
                         const HashDrawer& draw, std::vector<Row>& rows,
                         std::vector<HashBits>* bits) {
  const auto& bulk = hash_law_stats::bulk_statistics();
  const auto& tail = hash_law_stats::tail_statistics();
  std::vector<Counts> per_index(static_cast<std::size_t>(z.indices), Counts(bulk.size()));
  Counts grid_bulk(bulk.size()), grid_tail(tail.size());
  const std::uint64_t t0 = first_trial(cell, z);
  for (std::int64_t t = 0; t < z.trials; ++t)
    for (std::int64_t k = 0; k < z.indices; ++k) {
      const PositionalHash h = draw(t0 + static_cast<std::uint64_t>(t),
                                    static_cast<std::uint64_t>(k), sigma);
      per_index[static_cast<std::size_t>(k)].add(bulk, h, sigma);
      grid_tail.add(tail, h, sigma);
      if (bits) bits->push_back(bits_of(h));
    }
  for (std::int64_t k = 0; k < z.indices; ++k) {
    per_index[static_cast<std::size_t>(k)].append_rows(rows, sigma, "index", k, bulk);
    grid_bulk.add(per_index[static_cast<std::size_t>(k)]);
  }
  grid_bulk.append_rows(rows, sigma, "grid", 0, bulk);
  grid_tail.append_rows(rows, sigma, "grid", 0, tail);
}

// How many of `bits` equal another (each beyond the first of its value).
// Equal hashes share a bucket of a mix of their bits, so bucketing by 12 bits
// of it and sorting each bucket (in cache) finds them: about a third of the
// time of one sort of the whole array. `scratch` is reused storage.
std::int64_t count_equal(const std::vector<HashBits>& bits, std::vector<HashBits>& scratch) {
  constexpr int kBucketBits = 12;
  const auto bucket = [](const HashBits& b) {
    return static_cast<std::size_t>(mix64(b.first ^ mix64(b.second)) >> (64 - kBucketBits));
  };
  std::vector<std::size_t> start((std::size_t{1} << kBucketBits) + 1, 0);
  for (const auto& b : bits) ++start[bucket(b) + 1];
  for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  scratch.resize(bits.size());
  std::vector<std::size_t> next(start.begin(), start.end() - 1);
  for (const auto& b : bits) scratch[next[bucket(b)]++] = b;
  std::int64_t equal = 0;
  for (std::size_t i = 0; i + 1 < start.size(); ++i) {
    const auto first = scratch.begin() + static_cast<std::ptrdiff_t>(start[i]);
    const auto last = scratch.begin() + static_cast<std::ptrdiff_t>(start[i + 1]);
    std::sort(first, last);
    for (auto it = first; it != last && it + 1 != last; ++it) equal += *it == *(it + 1);
  }
  return equal;
}

// The duplicate search: the index probe's hashes (in `bits`) and the deep
// probe's, each (trial, index) drawn once; a hash bit-equal to another one
// drawn is a duplicate.
void duplicate_row(double sigma, std::int64_t cell, const HashLawSizes& z, const HashDrawer& draw,
                   std::vector<HashBits>& bits, std::vector<HashBits>& scratch,
                   std::vector<Row>& rows) {
  const std::uint64_t t0 = first_trial(cell, z);
  for (std::int64_t t = 0; t < std::min<std::int64_t>(2, z.trials); ++t)
    for (std::int64_t k = z.indices; k < z.indices + kDeepIndices; ++k)
      bits.push_back(bits_of(
          draw(t0 + static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(k), sigma)));
  rows.push_back(count_row(sigma, "duplicate", 0, "equal", static_cast<std::int64_t>(bits.size()),
                           count_equal(bits, scratch), 0));
}

bool bit_equal(const PositionalHash& a, const PositionalHash& b) {
  return a.pitch == b.pitch && a.shift == b.shift;
}

// Pairs of hashes 2^j apart, j < 64, in the trial (probe "span") or in the
// index (probe "index-span"): equal pairs per j, and the far members' law
// pooled ("far", "far-index"), each far hash once (indices k + 2^j repeat
// across j below 2).
void span_rows(double sigma, std::int64_t cell, const HashDrawer& draw, bool in_trial,
               std::vector<Row>& rows) {
  const auto& bulk = hash_law_stats::bulk_statistics();
  Counts far(bulk.size());
  std::vector<std::uint64_t> pooled_indices;  // far indices k + 2^j already pooled
  for (int j = 0; j < 64; ++j) {
    std::int64_t equal = 0;
    const std::uint64_t step = std::uint64_t{1} << j;
    for (std::int64_t i = 0; i < kSpanBases; ++i)
      for (std::int64_t k = 0; k < kSpanIndices; ++k) {
        const std::uint64_t b = span_base(cell * kSpanBases + i), kk = static_cast<std::uint64_t>(k);
        const PositionalHash near = draw(b, kk, sigma);
        const PositionalHash away =
            in_trial ? draw(b + step, kk, sigma) : draw(b, kk + step, sigma);
        equal += bit_equal(near, away);
        const bool again = !in_trial && std::find(pooled_indices.begin(), pooled_indices.end(),
                                                  kk + step) != pooled_indices.end();
        if (!again) far.add(bulk, away, sigma);
      }
    if (!in_trial)
      for (std::int64_t k = 0; k < kSpanIndices; ++k)
        pooled_indices.push_back(static_cast<std::uint64_t>(k) + step);
    rows.push_back(count_row(sigma, in_trial ? "span" : "index-span", j, "equal",
                             kSpanBases * kSpanIndices, equal, 0));
  }
  far.append_rows(rows, sigma, in_trial ? "far" : "far-index", 0, bulk);
}

// Whether two standardized values differ by more than rounding (NaN: yes).
bool differs(double a, double b) {
  return !(std::abs(a - b) <= kEquivarianceTolerance * std::max(std::abs(a), std::abs(b)));
}

// Equivariance: hashes of the cell's first trials and indices, standardized
// at the cell's sigma (key 0) and at each ladder sigma (key m: the octave
// [2^(m-9), 2^(m-8))), against the same hashes at sigma = 1.
void equivariance_rows(double sigma, std::int64_t cell, const HashLawSizes& z,
                       const HashDrawer& draw, std::vector<Row>& rows) {
  constexpr int kOctaves = 25;
  std::vector<std::int64_t> compared(kOctaves + 1, 0), unequal(kOctaves + 1, 0);
  const std::uint64_t t0 = first_trial(cell, z);
  const auto compare = [&](double s, std::size_t key) {
    for (std::int64_t t = 0; t < std::min(kEquivarianceTrials, z.trials); ++t)
      for (std::int64_t k = 0; k < std::min(kEquivarianceIndices, z.indices); ++k) {
        const std::uint64_t tt = t0 + static_cast<std::uint64_t>(t);
        const auto kk = static_cast<std::uint64_t>(k);
        const PositionalHash one = draw(tt, kk, 1.0), h = draw(tt, kk, s);
        unequal[key] += differs(h.pitch / s, one.pitch) || differs(h.shift / h.pitch,
                                                                   one.shift / one.pitch);
        ++compared[key];
      }
  };
  compare(sigma, 0);
  for (const double s : equivariance_ladder())
    compare(s, static_cast<std::size_t>(std::floor(std::log2(s))) + 9);
  for (std::size_t key = 0; key <= kOctaves; ++key)
    if (compared[key] > 0)
      rows.push_back(count_row(sigma, "equivariance", static_cast<std::int64_t>(key), "unequal",
                               compared[key], unequal[key], 0));
}

// The batched drawer users call against the scalar one every other row
// reads, bit for bit (hash_law.h, probe "batched"): key 0, hash k of
// batched(t, s) against draw(t, k); key 1, batched(t, s) against the first s
// hashes of batched(t, 2 s). The cell's first trials, at each of kBatchedSizes.
void batched_rows(double sigma, std::int64_t cell, const HashLawSizes& z, const HashDrawer& draw,
                  const BatchedDrawer& batched, std::vector<Row>& rows) {
  std::int64_t compared = 0, unequal = 0, nested = 0, unnested = 0;
  const std::uint64_t t0 = first_trial(cell, z);
  for (std::int64_t t = 0; t < std::min(kEquivarianceTrials, z.trials); ++t)
    for (const std::int64_t s : kBatchedSizes) {
      const std::uint64_t trial = t0 + static_cast<std::uint64_t>(t);
      const auto hashes = batched(trial, s, sigma), doubled = batched(trial, 2 * s, sigma);
      for (std::int64_t k = 0; k < s; ++k) {
        const auto i = static_cast<std::size_t>(k);
        unequal += !bit_equal(hashes[i], draw(trial, static_cast<std::uint64_t>(k), sigma));
        unnested += !bit_equal(hashes[i], doubled[i]);
      }
      compared += s;
      nested += s;
    }
  rows.push_back(count_row(sigma, "batched", 0, "unequal", compared, unequal, 0));
  rows.push_back(count_row(sigma, "batched", 1, "unequal", nested, unnested, 0));
}

// The largest gap between consecutive starts: b_max by brute force, the
// clipped last block included.
std::int64_t widest(const std::vector<std::int64_t>& starts) {
  std::int64_t widest = 0;
  for (std::size_t b = 1; b < starts.size(); ++b)
    widest = std::max(widest, starts[b] - starts[b - 1]);
  return widest;
}

// The blocks the library cuts against their definition (probe "blocks"):
// the equivariance probe's hashes at each n of kBlocksProbeN; key 0 the
// partitions, key 1 the largest block (largest_block_size, what blocksize and
// poslsh.b_max report) against the widest block of the definition's.
void blocks_rows(double sigma, std::int64_t cell, const HashLawSizes& z, const HashDrawer& draw,
                 const BlockCutter& blocks, std::vector<Row>& rows) {
  std::int64_t compared = 0, unequal = 0, unequal_b_max = 0;
  const std::uint64_t t0 = first_trial(cell, z);
  for (std::int64_t t = 0; t < std::min(kEquivarianceTrials, z.trials); ++t)
    for (std::int64_t k = 0; k < std::min(kEquivarianceIndices, z.indices); ++k) {
      const PositionalHash h =
          draw(t0 + static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(k), sigma);
      for (const std::int64_t n : kBlocksProbeN) {
        const auto reference = reference_block_starts(h, n);
        unequal += blocks(h, n) != reference;
        unequal_b_max += largest_block_size(h, n) != widest(reference);
        ++compared;
      }
    }
  rows.push_back(count_row(sigma, "blocks", 0, "unequal", compared, unequal, 0));
  rows.push_back(count_row(sigma, "blocks", 1, "unequal", compared, unequal_b_max, 0));
}

}  // namespace hash_law_cells

void require_hash_law_sigma(const std::string& option, const std::vector<double>& sigma) {
  require_in_range(option, sigma, kHashLawSigmaMin, kHashLawSigmaMax);
}

const std::vector<double>& equivariance_ladder() {
  static const std::vector<double> ladder = [] {
    std::vector<double> all;
    for (int heads = 1; heads <= 64; ++heads) {
      for (int h = 1; h <= heads; ++h) all.push_back(std::exp2(8.0 * h / heads));
      for (const double s : alibi_head_sigmas(heads)) all.push_back(s);
    }
    for (int j = -32; j <= 64; ++j) all.push_back(std::exp2(j / 4.0));
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
  }();
  return ladder;
}

std::vector<std::vector<std::string>> hash_law_index_rows(double sigma, std::int64_t cell,
                                                          const HashLawSizes& sizes,
                                                          const HashDrawer& draw) {
  std::vector<std::vector<std::string>> rows;
  hash_law_cells::index_and_grid_rows(sigma, cell, sizes, draw, rows, nullptr);
  return rows;
}

HashReaders hash_readers(std::uint64_t seed, const PlantedDefect& defect) {
  return {batched_drawer(seed, defect), block_cutter(defect)};
}

std::vector<std::vector<std::string>> hash_law_cell_rows(double sigma, std::int64_t cell,
                                                         const HashLawSizes& sizes,
                                                         const HashDrawer& draw,
                                                         const HashReaders& readers) {
  std::vector<std::vector<std::string>> rows;
  // Kept by each thread from cell to cell: 32 bytes a hash, faulted in once.
  thread_local std::vector<hash_law_cells::HashBits> bits, scratch;
  bits.clear();
  bits.reserve(static_cast<std::size_t>(sizes.indices * sizes.trials + 2 * kDeepIndices));
  hash_law_cells::index_and_grid_rows(sigma, cell, sizes, draw, rows, &bits);
  hash_law_cells::duplicate_row(sigma, cell, sizes, draw, bits, scratch, rows);
  hash_law_cells::span_rows(sigma, cell, draw, true, rows);
  hash_law_cells::span_rows(sigma, cell, draw, false, rows);
  hash_law_cells::equivariance_rows(sigma, cell, sizes, draw, rows);
  if (readers.batched)
    hash_law_cells::batched_rows(sigma, cell, sizes, draw, readers.batched, rows);
  if (readers.blocks) hash_law_cells::blocks_rows(sigma, cell, sizes, draw, readers.blocks, rows);
  return rows;
}

namespace hash_law_experiment {  // named: the runner is a unity build

// Sweep cells are the sigmas with their position in --sigma, which picks the
// cell's trials (hash_law.h): one row set each.
struct LawCell {
  double sigma;
  std::int64_t position;
};

class HashLaw : public SweptExperiment<LawCell> {
 public:
  void declare_options(CLI::App& cmd) override {
    cmd.add_option("--sigma", sigma_,
                   fmt::format("ALiBi scales sigma = 1/slope, in [{}, {}]; fractional ones too "
                               "(--alibi-heads' slopes); each draws its own trials",
                               kHashLawSigmaMin, kHashLawSigmaMax))
        ->required()
        ->delimiter(',');
    cmd.add_option("--indices", sizes_.indices,
                   "Hash indices k probed one by one (>= 1): every k below the largest s used")
        ->capture_default_str();
    cmd.add_option("--trials", sizes_.trials, "Trials per hash index (>= 1)")
        ->capture_default_str();
    cmd.add_option("--seed", seed_, "Random seed")->capture_default_str();
    plant_.declare(cmd);
  }

  void validate(CLI::App&, const SweepOptions&) override {
    require_nonempty("--sigma", sigma_.size());
    require_positive_finite("--sigma", sigma_);
    require_hash_law_sigma("--sigma", sigma_);
    require_at_least("--indices", sizes_.indices, 1);
    require_at_least("--trials", sizes_.trials, 1);
    if (sizes_.indices > (std::int64_t{1} << 20) || sizes_.trials > (std::int64_t{1} << 30))
      throw UsageError("--indices at most 2^20 and --trials at most 2^30");
    if (sizes_.indices * sizes_.trials > (std::int64_t{1} << 26))
      throw UsageError(
          "--indices x --trials at most 2^26 (the duplicate search holds 32 bytes a hash)");
    plant_.resolve();
  }

  std::vector<std::string> columns() const override { return hash_law_columns(); }
  std::vector<LawCell> cells() const override {
    std::vector<LawCell> cells;
    for (std::size_t i = 0; i < sigma_.size(); ++i)
      cells.push_back({sigma_[i], static_cast<std::int64_t>(i)});
    return cells;
  }

  std::vector<CsvRow> rows(const LawCell& cell) const override {
    return hash_law_cell_rows(cell.sigma, cell.position, sizes_,
                              hash_drawer(seed_, plant_.defect()),
                              hash_readers(seed_, plant_.defect()));
  }

  std::string label(const LawCell& cell) const override {
    return fmt::format("sigma={}", format_value(cell.sigma));
  }

  bool estimates_memory() const override { return true; }
  double memory_bytes(const LawCell&) const override {
    return 32.0 * static_cast<double>(sizes_.indices * sizes_.trials + 2 * kDeepIndices) +
           64.0 * static_cast<double>(sizes_.indices);
  }

  std::uint64_t seed() const override { return seed_; }

  RecordedOptions recorded_options(const CLI::App& cmd) const override {
    RecordedOptions recorded;
    plant_.record(cmd, recorded);
    return recorded;
  }

 private:
  std::vector<double> sigma_;
  HashLawSizes sizes_;
  std::uint64_t seed_ = 0;
  PlantDefectOption plant_;
};

constexpr const char* kSummary =
    "The hashes' own law: every hash index, far-apart trials, the pitch tail, duplicates, "
    "equivariance over every ALiBi head's sigma";

const bool registered_hash_law = register_experiment({
    .name = "hash-law",
    .summary = kSummary,
    .add_command =
        [](CLI::App& parent) {
          return swept_command(parent, "hash-law", kSummary, std::make_shared<HashLaw>());
        },
    .add_bench = {},
    .checker = {.required_columns = hash_law_columns(),
                .run = [](const CsvTable& t,
                          double alpha) { return check_hash_law_table(t, alpha); }},
});

}  // namespace hash_law_experiment

}  // namespace poslsh
