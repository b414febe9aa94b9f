// The power sweep's cells: one (defect, seed) builds every family's tables
// from the planted-defect sampler and records each check kind's outcome.
#include "experiments/power/power.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <cmath>
#include <map>

#include "experiments/blocksize/blocksize.h"
#include "experiments/convergence/convergence.h"
#include "experiments/hash_law/hash_law.h"
#include "experiments/unbiasedness/unbiasedness.h"
#include "experiments/verify/verify.h"
#include "runner/csv_writer.h"

namespace poslsh {

const std::vector<std::string>& power_columns() {
  static const std::vector<std::string> columns = {"defect", "seed",   "family",
                                                   "check",  "failed", "detail"};
  return columns;
}

namespace power_cells {  // named: the experiments are a unity build

// The kind of a check line: its name up to '[' (trailing spaces dropped).
std::string check_kind(const std::string& name) {
  std::string kind = name.substr(0, name.find('['));
  while (!kind.empty() && kind.back() == ' ') kind.pop_back();
  return kind;
}

// A detail fit for a CSV field: no commas or newlines.
std::string csv_safe(std::string s) {
  for (auto& c : s)
    if (c == ',' || c == '\n') c = ';';
  return s;
}

CsvTable as_table(const std::vector<std::string>& columns, const std::vector<CsvRow>& rows) {
  std::string text = csv_line(columns);
  for (const auto& r : rows) text += csv_line(r);
  return CsvTable::parse(text, "power");
}

// b_max moved from the sigma ln ln n regime to sigma ln n: b_max ln n / ln ln n.
void inflate_b_max(std::vector<CsvRow>& rows, std::int64_t n) {
  const auto& cols = blocksize_columns();
  const auto at =
      static_cast<std::size_t>(std::find(cols.begin(), cols.end(), "b_max") - cols.begin());
  const double ln_n = std::log(static_cast<double>(n));
  const double factor = n > 15 ? ln_n / std::log(ln_n) : 1.0;
  for (auto& r : rows) {
    const auto b = std::stoll(r[at]);
    r[at] = std::to_string(std::min<std::int64_t>(
        n, static_cast<std::int64_t>(std::llround(static_cast<double>(b) * factor))));
  }
}


// Offsets per sigma the lags family picks its offset from (as verify's default).
constexpr int kLagsPoints = 24;

// One power row per check kind of a family's outcomes: failed when any line of
// that kind failed (its first failing line is the detail).
void record_kinds(const PlantedDefect& defect, std::uint64_t seed, const std::string& family,
                  const std::vector<CheckOutcome>& outcomes, std::vector<CsvRow>& rows) {
  std::map<std::string, std::pair<bool, std::string>> kinds;  // kind -> (failed, first detail)
  std::vector<std::string> order;
  for (const auto& o : outcomes) {
    if (o.verdict != Verdict::kPass && o.verdict != Verdict::kFail) continue;
    const std::string kind = check_kind(o.check);
    if (!kinds.contains(kind)) order.push_back(kind);
    auto& k = kinds[kind];
    if (o.verdict == Verdict::kFail && !k.first) k = {true, o.check + ": " + o.detail};
  }
  for (const auto& kind : order)
    rows.push_back({defect.name(), std::to_string(seed), family, kind,
                    kinds[kind].first ? "1" : "0", csv_safe(kinds[kind].second)});
}

std::vector<CheckOutcome> unbiasedness_outcomes(const PowerSizes& z, const HashDrawer& draw,
                                                BinningBug bug, double alpha) {
  std::vector<CsvRow> t;
  for (const auto n : z.unbiasedness_n)
    for (const double sigma : z.unbiasedness_sigma) {
      auto part = unbiasedness_cell_rows(n, sigma, z.unbiasedness_hashes, z.unbiasedness_batch,
                                         z.unbiasedness_points, draw, bug);
      t.insert(t.end(), part.begin(), part.end());
    }
  return check_unbiasedness_table(as_table(unbiasedness_columns(), t), alpha);
}

// The lags family: per (n, sigma), the co-binning indicator at the offset
// nearest p = 1/2 from the start, middle and end anchors of each hash of the
// interleaved stream, tested over every batch scale (verify.h).
std::vector<CheckOutcome> lags_outcomes(const PowerSizes& z, const HashDrawer& draw, double alpha) {
  const double cell_alpha = alpha / static_cast<double>(z.lags_n.size() * z.lags_sigma.size());
  std::vector<std::string> names;
  for (const auto r : all_cobin_regions()) names.push_back(cobin_region_name(r));
  std::vector<CheckOutcome> out;
  for (const auto n : z.lags_n)
    for (const double sigma : z.lags_sigma) {
      const std::int64_t t = lag_test_offset(n, sigma, kLagsPoints);
      std::vector<std::vector<bool>> cobinned(names.size());
      for (std::int64_t k = 0; k < z.lags_hashes; ++k) {
        const PositionalHash h = draw_interleaved(draw, k, sigma);
        for (std::size_t a = 0; a < names.size(); ++a)
          cobinned[a].push_back(t < cobin_run(h, all_cobin_regions()[a], n));
      }
      auto part = lag_dispersion_outcomes(cobinned, names, n, sigma, t, cell_alpha);
      out.insert(out.end(), part.begin(), part.end());
    }
  return out;
}

std::vector<CheckOutcome> blocksize_outcomes(const PowerSizes& z, const HashDrawer& draw,
                                             bool inflate, double alpha) {
  std::vector<SampleCount> counts;
  for (const auto s : z.blocksize_s) counts.push_back({s, 0});
  for (const auto c : z.blocksize_s_log) counts.push_back({0, c});
  std::vector<CsvRow> t;
  for (const auto n : z.blocksize_n)
    for (const double sigma : z.blocksize_sigma) {
      auto part = blocksize_cell_rows(n, sigma, counts, z.blocksize_trials, draw, z.p);
      if (inflate) inflate_b_max(part, n);
      t.insert(t.end(), part.begin(), part.end());
    }
  return check_blocksize_table(as_table(blocksize_columns(), t), alpha);
}

std::vector<CheckOutcome> convergence_outcomes(const PowerSizes& z, const HashDrawer& draw,
                                               std::uint64_t seed, double alpha) {
  ConvergenceSettings settings;
  settings.p = z.p;
  settings.seed = seed;
  settings.max_lanczos = 20000;
  std::vector<CsvRow> t;
  for (const auto n : z.convergence_n)
    for (const double sigma : z.convergence_sigma)
      for (const auto s : z.convergence_s)
        for (std::int64_t trial = 0; trial < z.convergence_trials; ++trial) {
          std::vector<PositionalHash> hashes;
          for (std::int64_t k = 0; k < s; ++k)
            hashes.push_back(
                draw(static_cast<std::uint64_t>(trial), static_cast<std::uint64_t>(k), sigma));
          t.push_back(
              convergence_row(n, sigma, static_cast<std::uint64_t>(trial), hashes, settings));
        }
  return check_convergence_table(as_table(convergence_columns(), t), alpha);
}

std::vector<CheckOutcome> hash_law_outcomes(const PowerSizes& z, const HashDrawer& draw,
                                            const HashReaders& readers, double alpha) {
  std::vector<CsvRow> t;
  for (std::size_t c = 0; c < z.hash_law_sigma.size(); ++c) {
    auto part = hash_law_cell_rows(z.hash_law_sigma[c], static_cast<std::int64_t>(c),
                                   {z.hash_law_indices, z.hash_law_trials}, draw, readers);
    t.insert(t.end(), part.begin(), part.end());
  }
  return check_hash_law_table(as_table(hash_law_columns(), t), alpha);
}

}  // namespace power_cells

std::vector<CsvRow> power_cell_rows(const PlantedDefect& defect, std::uint64_t seed,
                                    const PowerSizes& z) {
  using namespace power_cells;
  const HashDrawer draw = hash_drawer(seed, defect.sampler);
  const bool unb = !z.unbiasedness_n.empty() && !z.unbiasedness_sigma.empty();
  const bool bs = !z.blocksize_n.empty() && !z.blocksize_sigma.empty();
  const bool conv = !z.convergence_n.empty() && !z.convergence_sigma.empty();
  const bool lags = !z.lags_n.empty() && !z.lags_sigma.empty();
  const bool law = !z.hash_law_sigma.empty();
  const double alpha =
      kCheckFamilyAlpha / std::max(1, int{unb} + int{bs} + int{conv} + int{lags} + int{law});
  std::vector<CsvRow> rows;
  // The b_max inflation is a defect of block sizes only, a binning bug one of
  // the co-binning consumers only: other families would test the sound
  // sampler again.
  const bool binning_bug = defect.binning_bug != BinningBug::kNone;
  // A bug of the batched drawer alone: the families that draw hash by hash
  // from the scalar drawer would test the sound sampler again; unbiasedness
  // reads the batched one and hash-law compares the two.
  const bool batched_only = defect.batched_bug != BatchedBug::kNone;
  // Unbiasedness reads the batched drawer, as the experiment does.
  if (unb && !defect.inflate_b_max)
    record_kinds(defect, seed, "unbiasedness",
                 unbiasedness_outcomes(z, drawer_from_batches(batched_drawer(seed, defect)),
                                       defect.binning_bug, alpha),
                 rows);
  if (lags && !defect.inflate_b_max && !binning_bug && !batched_only)
    record_kinds(defect, seed, "lags", lags_outcomes(z, draw, alpha), rows);
  if (bs && !binning_bug && !batched_only)
    record_kinds(defect, seed, "blocksize",
                 blocksize_outcomes(z, draw, defect.inflate_b_max, alpha), rows);
  if (conv && !defect.inflate_b_max && !binning_bug && !batched_only)
    record_kinds(defect, seed, "convergence", convergence_outcomes(z, draw, seed, alpha), rows);
  // A binning bug: the co-binning consumers above and hash-law's blocks probe.
  if (law && !defect.inflate_b_max)
    record_kinds(defect, seed, "hash-law",
                 hash_law_outcomes(z, draw, hash_readers(seed, defect), alpha), rows);
  return rows;
}

}  // namespace poslsh
