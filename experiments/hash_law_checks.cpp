// `poslsh check` on a hash-law table: each row an exact binomial test of a
// count of hashes against its probability under the sound law, one line per
// (sigma, line kind) with a Bonferroni level over the table's rows.
#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "experiments/hash_law.h"
#include "internal/printable.h"
#include "runner/cli_common.h"
#include "stats/binomial.h"

namespace poslsh {

namespace hash_law_checks {

// The five line kinds, in output order.
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
                         CsvTable::line_of(r), detail::printable(probe)));
  if ((stat == "equal") != (probe == "span" || probe == "index-span"))
    unusable(fmt::format("row {}: statistic '{}' does not belong to probe {}",
                         CsvTable::line_of(r), detail::printable(stat), probe));
}

LawRow read_row(const CsvTable& t, std::size_t r) {
  LawRow row;
  row.sigma = t.number(r, "sigma");
  if (!std::isfinite(row.sigma) || !(row.sigma > 0))
    unusable(fmt::format("row {}: sigma must be finite and > 0", CsvTable::line_of(r)));
  row.probe = t.text(r, "probe");
  row.statistic = t.text(r, "statistic");
  check_probe_statistic(r, row.probe, row.statistic);
  if (!hash_law_statistic_probability(row.statistic, row.p))
    unusable(fmt::format("row {}: unknown statistic '{}'", CsvTable::line_of(r),
                         detail::printable(row.statistic)));
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
  return stats::binomial_two_sided_p(r.count, r.hashes, r.p);
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
  const double share = alpha / static_cast<double>(kKinds);
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

}  // namespace poslsh
