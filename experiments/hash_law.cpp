#include "experiments/hash_law.h"

#include <fmt/format.h>
#include <poslsh/argument_error.h>
#include <poslsh/cobinning.h>
#include <poslsh/input_error.h>
#include <poslsh/pitch_law.h>
#include <poslsh/rng.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "experiments/planted_defect.h"
#include "runner/cli_common.h"
#include "runner/swept_experiment.h"

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

// The tail: P(pitch >= c sigma) from 3e-3 (c = 8) to 1.9e-6 (c = 16).
const std::vector<Statistic>& tail_statistics() {
  static const std::vector<Statistic> all = {{Statistic::kPitchAtLeast, 8},
                                             {Statistic::kPitchAtLeast, 10},
                                             {Statistic::kPitchAtLeast, 12},
                                             {Statistic::kPitchAtLeast, 14},
                                             {Statistic::kPitchAtLeast, 16}};
  return all;
}

// The probability of a statistic named in a table; false for an unknown name.
bool statistic_probability(const std::string& name, double& p) {
  if (name == "equal") return p = 0, true;
  for (const auto* set : {&bulk_statistics(), &tail_statistics()})
    for (const auto& s : *set)
      if (s.name() == name) return p = s.probability(), true;
  return false;
}

}  // namespace hash_law_stats

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

// The grid's bulk counts are the indices' summed, not counted again.
void index_and_grid_rows(double sigma, const HashLawSizes& z, const HashDrawer& draw,
                         std::vector<Row>& rows) {
  const auto& bulk = hash_law_stats::bulk_statistics();
  const auto& tail = hash_law_stats::tail_statistics();
  std::vector<Counts> per_index(static_cast<std::size_t>(z.indices), Counts(bulk.size()));
  Counts grid_bulk(bulk.size()), grid_tail(tail.size());
  for (std::int64_t t = 0; t < z.trials; ++t)
    for (std::int64_t k = 0; k < z.indices; ++k) {
      const PositionalHash h =
          draw(static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(k), sigma);
      per_index[static_cast<std::size_t>(k)].add(bulk, h, sigma);
      grid_tail.add(tail, h, sigma);
    }
  for (std::int64_t k = 0; k < z.indices; ++k) {
    per_index[static_cast<std::size_t>(k)].append_rows(rows, sigma, "index", k, bulk);
    grid_bulk.add(per_index[static_cast<std::size_t>(k)]);
  }
  grid_bulk.append_rows(rows, sigma, "grid", 0, bulk);
  grid_tail.append_rows(rows, sigma, "grid", 0, tail);
}

bool bit_equal(const PositionalHash& a, const PositionalHash& b) {
  return a.pitch == b.pitch && a.shift == b.shift;
}

// Pairs of hashes 2^j apart, j < 64, in the trial (probe "span") or in the
// index (probe "index-span"): equal pairs per j, and the far members' law
// pooled ("far", "far-index").
void span_rows(double sigma, const HashDrawer& draw, bool in_trial, std::vector<Row>& rows) {
  const auto& bulk = hash_law_stats::bulk_statistics();
  Counts far(bulk.size());
  for (int j = 0; j < 64; ++j) {
    std::int64_t equal = 0;
    const std::uint64_t step = std::uint64_t{1} << j;
    for (std::int64_t i = 0; i < kSpanBases; ++i)
      for (std::int64_t k = 0; k < kSpanIndices; ++k) {
        const std::uint64_t b = span_base(i), kk = static_cast<std::uint64_t>(k);
        const PositionalHash near = draw(b, kk, sigma);
        const PositionalHash away =
            in_trial ? draw(b + step, kk, sigma) : draw(b, kk + step, sigma);
        equal += bit_equal(near, away);
        far.add(bulk, away, sigma);
      }
    rows.push_back(count_row(sigma, in_trial ? "span" : "index-span", j, "equal",
                             kSpanBases * kSpanIndices, equal, 0));
  }
  far.append_rows(rows, sigma, in_trial ? "far" : "far-index", 0, bulk);
}

}  // namespace hash_law_cells

std::vector<std::vector<std::string>> hash_law_index_rows(double sigma, const HashLawSizes& sizes,
                                                          const HashDrawer& draw) {
  std::vector<std::vector<std::string>> rows;
  hash_law_cells::index_and_grid_rows(sigma, sizes, draw, rows);
  return rows;
}

std::vector<std::vector<std::string>> hash_law_cell_rows(double sigma, const HashLawSizes& sizes,
                                                         const HashDrawer& draw) {
  std::vector<std::vector<std::string>> rows = hash_law_index_rows(sigma, sizes, draw);
  hash_law_cells::span_rows(sigma, draw, true, rows);
  hash_law_cells::span_rows(sigma, draw, false, rows);
  return rows;
}

namespace hash_law_checks {

// The four line kinds, in output order.
enum Kind { kIndex, kBulk, kTail, kSpan, kIndexSpan, kKinds };
const char* kind_name(int k) {
  static const char* names[] = {"hash-index", "hash-bulk", "pitch-tail", "trial-span",
                                "index-span"};
  return names[k];
}

struct LawRow {
  double sigma, p;
  std::string probe, statistic, key;
  std::int64_t hashes, count;
  int kind;
};

int row_kind(const std::string& probe, const std::string& statistic) {
  if (probe == "index") return kIndex;
  if (probe == "span" || probe == "far") return kSpan;
  if (probe == "index-span" || probe == "far-index") return kIndexSpan;
  return statistic.rfind("pitch>=", 0) == 0 ? kTail : kBulk;
}

// Counts are integers in [0, 2^53): exact in a double.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 53;

void check_probe_statistic(std::size_t r, const std::string& probe, const std::string& stat) {
  static const std::vector<std::string> probes = {"index", "grid",       "span",
                                                 "far",   "index-span", "far-index"};
  if (std::find(probes.begin(), probes.end(), probe) == probes.end())
    unusable(fmt::format("row {}: probe '{}' is none of index, grid, span, far, index-span, "
                         "far-index",
                         CsvTable::line_of(r), printable(probe)));
  if ((stat == "equal") != (probe == "span" || probe == "index-span"))
    unusable(fmt::format("row {}: statistic '{}' does not belong to probe {}",
                         CsvTable::line_of(r), printable(stat), probe));
}

LawRow read_row(const CsvTable& t, std::size_t r) {
  LawRow row;
  row.sigma = t.number(r, "sigma");
  if (!std::isfinite(row.sigma) || !(row.sigma > 0))
    unusable(fmt::format("row {}: sigma must be finite and > 0", CsvTable::line_of(r)));
  row.probe = t.text(r, "probe");
  row.statistic = t.text(r, "statistic");
  check_probe_statistic(r, row.probe, row.statistic);
  if (!hash_law_stats::statistic_probability(row.statistic, row.p))
    unusable(fmt::format("row {}: unknown statistic '{}'", CsvTable::line_of(r),
                         printable(row.statistic)));
  const bool span = row.probe == "span" || row.probe == "index-span";
  const std::int64_t key = t.integer(r, "key", 0, span ? 63 : kMaxCount);
  row.key = std::to_string(key);
  row.hashes = t.integer(r, "hashes", 1, kMaxCount);
  row.count = t.integer(r, "count", 0, row.hashes);
  const double expected = static_cast<double>(row.hashes) * row.p;
  if (!(std::abs(t.number(r, "expected") - expected) <= 1e-9 * std::max(1.0, expected)))
    unusable(fmt::format("row {}: expected {} disagrees with its recomputation {}",
                         CsvTable::line_of(r), t.text(r, "expected"), format_value(expected)));
  row.kind = row_kind(row.probe, row.statistic);
  return row;
}

// The two-sided p-value of a row; an "equal" row: 1 when no pair is equal,
// else a bound on the chance of one equal pair among sound hashes.
double row_p_value(const LawRow& r) {
  if (r.p == 0) return r.count == 0 ? 1.0 : static_cast<double>(r.hashes) * 0x1p-106;
  return binomial_two_sided_p(r.count, r.hashes, r.p);
}

std::string row_label(const LawRow& r) {
  return fmt::format("{} {} {}: {} of {} (expected {:.6g})", r.probe, r.key, r.statistic, r.count,
                     r.hashes, static_cast<double>(r.hashes) * r.p);
}

CheckOutcome kind_outcome(int kind, double sigma, const std::vector<const LawRow*>& rows,
                          double level, double share, std::size_t kind_rows) {
  const std::string name = fmt::format("{}[sigma={}]", kind_name(kind), format_value(sigma));
  const LawRow* worst = nullptr;
  double worst_p = 2;
  for (const LawRow* r : rows) {
    const double pv = row_p_value(*r);
    if (pv < worst_p) worst_p = pv, worst = r;
  }
  return {name, worst_p >= level ? Verdict::kPass : Verdict::kFail,
          fmt::format("{} rows; smallest p = {:.3g} (exact binomial; an equal pair: at most "
                      "pairs x 2^-106) at {}; needs >= {:.2g} "
                      "(family-wise {:.2g} over {} rows)",
                      rows.size(), worst_p, row_label(*worst), level, share, kind_rows)};
}

}  // namespace hash_law_checks

std::vector<CheckOutcome> check_hash_law_table(const CsvTable& table, double alpha) {
  using namespace hash_law_checks;
  if (table.size() == 0) return {{"hash-law", Verdict::kFail, "the table has no rows"}};
  std::vector<LawRow> rows;
  for (std::size_t r = 0; r < table.size(); ++r) rows.push_back(read_row(table, r));
  std::vector<double> sigmas;
  std::size_t per_kind[kKinds] = {};
  for (const auto& r : rows) {
    if (std::find(sigmas.begin(), sigmas.end(), r.sigma) == sigmas.end())
      sigmas.push_back(r.sigma);
    ++per_kind[r.kind];
  }
  const double share = alpha / kKinds;
  std::vector<CheckOutcome> out;
  for (const double sigma : sigmas)
    for (int kind = 0; kind < kKinds; ++kind) {
      std::vector<const LawRow*> group;
      for (const auto& r : rows)
        if (r.sigma == sigma && r.kind == kind) group.push_back(&r);
      if (group.empty()) continue;
      out.push_back(kind_outcome(kind, sigma, group,
                                 share / static_cast<double>(per_kind[kind]), share,
                                 per_kind[kind]));
    }
  return out;
}

namespace hash_law_experiment {  // named: the runner is a unity build

// Sweep cells are the sigmas: one row set each.
class HashLaw : public SweptExperiment<double> {
 public:
  void declare_options(CLI::App& cmd) override {
    cmd.add_option("--sigma", sigma_,
                   "ALiBi scales sigma = 1/slope (> 0); fractional ones too (--alibi-heads' slopes)")
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
    require_at_least("--indices", sizes_.indices, 1);
    require_at_least("--trials", sizes_.trials, 1);
    if (sizes_.indices > (std::int64_t{1} << 20) || sizes_.trials > (std::int64_t{1} << 30))
      throw UsageError("--indices at most 2^20 and --trials at most 2^30");
    plant_.resolve();
  }

  std::vector<std::string> columns() const override { return hash_law_columns(); }
  std::vector<double> cells() const override { return sigma_; }

  std::vector<CsvRow> rows(const double& sigma) const override {
    return hash_law_cell_rows(sigma, sizes_, hash_drawer(seed_, plant_.defect()));
  }

  std::string label(const double& sigma) const override {
    return fmt::format("sigma={}", format_value(sigma));
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
    "The hashes' own law: every hash index, far-apart trials, the pitch tail, any sigma";

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
