// `poslsh check` on a hash-law table: each row an exact binomial test of a
// count of hashes against its probability under the sound law, pooled over
// the sigmas (the law is sigma-free and each sigma's cell draws its own
// trials, hash_law.h), one line per line kind with a Bonferroni level over
// the kind's pooled rows.
#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string_view>

#include "experiments/hash_law/hash_law.h"
#include "internal/printable.h"
#include "runner/cli_common.h"
#include "stats/binomial.h"

namespace poslsh {

namespace hash_law_checks {

// The line kinds, in output order: seven statistical ones, which share alpha,
// and two identities, deterministic (an unequal hash has probability 0),
// which spend none: the batched drawer's and the library's blocks'.
enum Kind {
  kIndex, kBulk, kTail, kSpan, kIndexSpan, kDuplicate, kEquivariance, kBatched, kBlocks, kKinds
};
constexpr int kStatisticalKinds = kBatched;
const char* kind_name(int k) {
  static const char* names[] = {"hash-index", "hash-bulk",      "pitch-tail",
                                "trial-span", "index-span",     "duplicates",
                                "equivariance", "batched-drawer", "blocks"};
  return names[k];
}

struct LawRow {
  double sigma, p;
  std::string probe, statistic, key;
  std::int64_t hashes, count;
  int kind;
  int sigmas = 1;  // how many sigmas a pooled row sums
};

int row_kind(const std::string& probe, const std::string& statistic) {
  if (probe == "index") return kIndex;
  if (probe == "span" || probe == "far") return kSpan;
  if (probe == "index-span" || probe == "far-index") return kIndexSpan;
  if (probe == "duplicate") return kDuplicate;
  if (probe == "equivariance") return kEquivariance;
  if (probe == "batched") return kBatched;
  if (probe == "blocks") return kBlocks;
  return statistic.rfind("pitch>=", 0) == 0 ? kTail : kBulk;
}

// Counts are integers in [0, 2^53): exact in a double.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 53;

// The statistic a probe must carry: "equal", "unequal" or a cut ("").
std::string probe_statistic(const std::string& probe) {
  if (probe == "span" || probe == "index-span" || probe == "duplicate") return "equal";
  return probe == "equivariance" || probe == "batched" || probe == "blocks" ? "unequal" : "";
}

void check_probe_statistic(std::size_t r, const std::string& probe, const std::string& stat) {
  static const std::vector<std::string> probes = {
      "index",     "grid",         "span",    "far",   "index-span",
      "far-index", "duplicate", "equivariance", "batched", "blocks"};
  if (std::find(probes.begin(), probes.end(), probe) == probes.end())
    unusable(fmt::format("row {}: probe '{}' is none of index, grid, span, far, index-span, "
                         "far-index, duplicate, equivariance, batched, blocks",
                         CsvTable::line_of(r), detail::printable(probe)));
  const std::string needed = probe_statistic(probe);
  const bool zero_law = stat == "equal" || stat == "unequal";
  if (needed.empty() ? zero_law : stat != needed)
    unusable(fmt::format("row {}: statistic '{}' does not belong to probe {}",
                         CsvTable::line_of(r), detail::printable(stat), probe));
}

std::int64_t largest_key(const std::string& probe) {
  if (probe == "span" || probe == "index-span") return 63;
  if (probe == "duplicate") return 0;
  if (probe == "equivariance") return 25;
  if (probe == "batched") return 1;
  if (probe == "blocks") return 1;
  return kMaxCount;
}

LawRow read_row(const CsvTable& t, std::size_t r) {
  LawRow row;
  row.sigma = t.number(r, "sigma");
  if (!(row.sigma >= kHashLawSigmaMin && row.sigma <= kHashLawSigmaMax))
    unusable(fmt::format("row {}: sigma must be a number in [{}, {}]", CsvTable::line_of(r),
                         kHashLawSigmaMin, kHashLawSigmaMax));
  row.probe = t.text(r, "probe");
  row.statistic = t.text(r, "statistic");
  check_probe_statistic(r, row.probe, row.statistic);
  if (!hash_law_statistic_probability(row.statistic, row.p))
    unusable(fmt::format("row {}: unknown statistic '{}'", CsvTable::line_of(r),
                         detail::printable(row.statistic)));
  row.key = std::to_string(t.integer(r, "key", 0, largest_key(row.probe)));
  row.hashes = t.integer(r, "hashes", 1, kMaxCount);
  row.count = t.integer(r, "count", 0, row.hashes);
  const double expected = static_cast<double>(row.hashes) * row.p;
  if (!(std::abs(t.number(r, "expected") - expected) <= 1e-9 * std::max(1.0, expected)))
    unusable(fmt::format("row {}: expected {} disagrees with its recomputation {}",
                         CsvTable::line_of(r), t.text(r, "expected"), format_value(expected)));
  row.kind = row_kind(row.probe, row.statistic);
  return row;
}

// The rows of a table with each (probe, key, statistic) summed over the
// sigmas, in first-seen order; equivariance rows stay per sigma.
std::vector<LawRow> pooled_rows(const std::vector<LawRow>& rows) {
  std::vector<LawRow> pooled;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> at;
  for (const auto& r : rows) {
    if (r.kind == kEquivariance) {
      pooled.push_back(r);
      continue;
    }
    const auto id = std::make_tuple(r.probe, r.key, r.statistic);
    const auto it = at.find(id);
    if (it == at.end()) {
      at[id] = pooled.size();
      pooled.push_back(r);
      continue;
    }
    LawRow& p = pooled[it->second];
    p.hashes += r.hashes;
    p.count += r.count;
    ++p.sigmas;
  }
  return pooled;
}

// Bound on the chance that sound hashes give an "equal" row's count: 1 for
// none, else pairs x kEqualPairBound (a span row's hashes are the pairs it
// compared; a duplicate row compares every pair of its hashes, and pooled
// over sigma every pair of the pooled ones, more than it compared). An
// "unequal" row is deterministic: 0 for any.
double zero_law_p_value(const LawRow& r) {
  if (r.count == 0) return 1.0;
  if (r.statistic == "unequal") return 0.0;
  const double n = static_cast<double>(r.hashes);
  const double pairs = r.probe == "duplicate" ? n * (n - 1) / 2 : n;
  return std::min(1.0, pairs * kEqualPairBound);
}

// The two-sided p-value of a row.
double row_p_value(const LawRow& r) {
  if (r.p == 0) return zero_law_p_value(r);
  return stats::binomial_two_sided_p(r.count, r.hashes, r.p);
}

// The smallest p-value a row can give at any count: above the level, the row
// cannot fail.
double smallest_attainable_p(const LawRow& r) {
  if (r.p == 0) {
    LawRow one = r;
    one.count = 1;
    return zero_law_p_value(one);
  }
  return std::min(stats::binomial_two_sided_p(0, r.hashes, r.p),
                  stats::binomial_two_sided_p(r.hashes, r.hashes, r.p));
}

std::string row_label(const LawRow& r) {
  std::string where = r.kind == kEquivariance
                          ? fmt::format(" at sigma={}", format_value(r.sigma))
                          : fmt::format(" over {} sigma", r.sigmas);
  std::string key = r.key;
  if (r.kind == kEquivariance)
    key = r.key == "0" ? "(the row's sigma)"
                       : fmt::format("(ladder sigmas in [2^{}, 2^{}))", std::stoi(r.key) - 9,
                                     std::stoi(r.key) - 8);
  return fmt::format("{} {} {}: {} of {} (expected {:.6g}){}", r.probe, key, r.statistic,
                     r.count, r.hashes, static_cast<double>(r.hashes) * r.p, where);
}

// An identity probe (batched, blocks): deterministic, PASS with no unequal
// value, FAIL with one. `what` names what each key compares.
CheckOutcome identity_outcome(int kind, const std::vector<const LawRow*>& rows,
                              const std::array<std::string_view, 2>& what) {
  std::int64_t compared[2] = {0, 0}, unequal[2] = {0, 0};
  for (const LawRow* r : rows) {
    const int key = r->key == "0" ? 0 : 1;
    compared[key] += r->hashes;
    unequal[key] += r->count;
  }
  return {kind_name(kind), unequal[0] + unequal[1] == 0 ? Verdict::kPass : Verdict::kFail,
          fmt::format("{}: {} of {} unequal; {}: {} of {} unequal; deterministic: one unequal "
                      "value is a FAIL",
                      what[0], unequal[0], compared[0], what[1], unequal[1], compared[1])};
}

constexpr std::array<std::string_view, 2> kBatchedWhat = {
    "the batched drawer (draw_hashes: what convergence, attention, sample and the Python "
    "module call) against the scalar one the law lines read, hash for hash, bit for bit",
    "nested across s (the first s of a batch of 2 s)"};
constexpr std::array<std::string_view, 2> kBlocksWhat = {
    "the blocks the library cuts (block_starts: what MaskMean, lsh_attention and sample "
    "--blocks read) against their definition floor((i - shift) / pitch), cut by code of its "
    "own, partition for partition",
    "the largest block (largest_block_size: what blocksize and b_max report, the clipped last "
    "block included) against the definition's widest"};

CheckOutcome kind_outcome(int kind, const std::vector<const LawRow*>& rows, double level,
                          double share) {
  const std::string name = kind_name(kind);
  const LawRow* worst = nullptr;
  double worst_p = 2, reachable = 2;
  for (const LawRow* r : rows) {
    const double pv = row_p_value(*r);
    if (pv < worst_p) worst_p = pv, worst = r;
    reachable = std::min(reachable, smallest_attainable_p(*r));
  }
  const std::string levels = fmt::format("needs >= {:.2g} (family-wise {:.2g} over {} rows)",
                                         level, share, rows.size());
  if (reachable > level)
    return {name, Verdict::kNotApplicable,
            fmt::format("{} rows; no count of any row could FAIL: the smallest attainable p is "
                        "{:.3g}, above the level; {} (more trials, or more sigmas to pool)",
                        rows.size(), reachable, levels),
            "use more trials, or more sigmas to pool"};
  return {name, worst_p >= level ? Verdict::kPass : Verdict::kFail,
          fmt::format("{} rows; smallest p = {:.3g} (exact binomial; an equal pair: at most "
                      "pairs x 2^-96; an unequal hash: 0) at {}; {}",
                      rows.size(), worst_p, row_label(*worst), levels)};
}

}  // namespace hash_law_checks

std::vector<CheckOutcome> check_hash_law_table(const CsvTable& table, double alpha) {
  using namespace hash_law_checks;
  if (table.size() == 0) return {{"hash-law", Verdict::kFail, "the table has no rows"}};
  std::vector<LawRow> read;
  for (std::size_t r = 0; r < table.size(); ++r) read.push_back(read_row(table, r));
  const std::vector<LawRow> rows = pooled_rows(read);
  const double share = alpha / static_cast<double>(kStatisticalKinds);
  std::vector<CheckOutcome> out;
  for (int kind = 0; kind < kKinds; ++kind) {
    std::vector<const LawRow*> group;
    for (const auto& r : rows)
      if (r.kind == kind) group.push_back(&r);
    if (group.empty()) continue;
    if (kind == kBatched)
      out.push_back(identity_outcome(kind, group, kBatchedWhat));
    else if (kind == kBlocks)
      out.push_back(identity_outcome(kind, group, kBlocksWhat));
    else
      out.push_back(
          kind_outcome(kind, group, share / static_cast<double>(group.size()), share));
  }
  return out;
}

}  // namespace poslsh
