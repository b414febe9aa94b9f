// `poslsh check` on an unbiasedness table: its rows read back into co-binning
// groups (every count and offset validated against the table's own
// parameters), then the co-binning checks of cobinning_checks.h.
#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "experiments/unbiasedness/cobinning_checks.h"
#include "experiments/unbiasedness/unbiasedness.h"
#include "experiments/kernel_option.h"
#include "runner/cli_common.h"

namespace poslsh {

namespace unbiasedness_checks {  // named: the experiments are a unity build

// Counts and positions are integers in [0, 2^53): exact in a double.
constexpr std::int64_t kMaxCell = std::int64_t{1} << 53;

// The row's law: its `kernel` column's spec at the row's sigma (a table
// without the column is ALiBi's).
CobinLaw row_law(const CsvTable& t, std::size_t r, double sigma) {
  if (!t.has_column("kernel")) return CobinLaw{sigma};
  try {
    const Kernel kernel = parse_kernel(t.text(r, "kernel"), sigma);
    if (kernel.family() == KernelFamily::kLaplace) return CobinLaw{sigma};
    return CobinLaw{sigma, kernel};
  } catch (const InputError& e) {  // ArgumentError too
    throw InputError(fmt::format("row {}: kernel: {}", CsvTable::line_of(r), e.what()));
  } catch (const UsageError& e) {
    throw InputError(fmt::format("row {}: kernel: {}", CsvTable::line_of(r), e.what()));
  }
}

std::vector<CobinGroup> read_groups(const CsvTable& t) {
  std::map<std::tuple<std::int64_t, double, std::string>, std::size_t> index;
  std::vector<CobinGroup> groups;
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::int64_t n = t.integer(r, "n", 0, kMaxUnbiasednessN);
    const double sigma = t.number(r, "sigma");
    if (!std::isfinite(sigma) || !(sigma > 0))
      throw InputError(fmt::format("row {}: sigma must be finite and > 0", CsvTable::line_of(r)));
    const std::string region = t.text(r, "region");
    if (n < 4) throw InputError(fmt::format("row {}: n must be >= 4", CsvTable::line_of(r)));
    const CobinAnchor a = parse_cobin_anchor(region, n);
    const std::int64_t anchor = t.integer(r, "anchor", 0, kMaxCell);
    if (anchor != a.position)
      throw InputError(fmt::format("row {}: anchor {} is not the {} anchor {} of n = {}",
                                   CsvTable::line_of(r), anchor, region, a.position, n));
    const std::int64_t off = t.integer(r, "t", 0, kMaxCell);
    const bool room = a.backward ? anchor - off >= 0 : anchor + off <= a.range - 1;
    if (off < 1 || !room)
      throw InputError(fmt::format("row {}: offset t = {} leaves [0, n) from the {} anchor",
                                   CsvTable::line_of(r), off, region));
    const std::int64_t hashes = t.integer(r, "hashes", 0, kMaxCell),
                       batch = t.integer(r, "batch", 0, kMaxCell);
    if (batch < 1 || hashes < batch || hashes % batch != 0)
      throw InputError(fmt::format("row {}: hashes ({}) must be a positive multiple of batch ({})",
                                   CsvTable::line_of(r), hashes, batch));
    const std::int64_t k = t.integer(r, "cobinned", 0, kMaxCell);
    const std::int64_t sumsq = t.integer(r, "batch_cobinned_sumsq", 0, kMaxCell);
    const std::int64_t batches = hashes / batch;
    // Cauchy-Schwarz and 0 <= K_b <= batch bound the sum of squares.
    if (k > hashes || sumsq > batch * k || sumsq * batches < k * k)
      throw InputError(fmt::format(
          "row {}: counts out of range (cobinned {} of {} hashes, batch sum of squares {})",
          CsvTable::line_of(r), k, hashes, sumsq));
    const CobinLaw law = row_law(t, r, sigma);
    const double expected = static_cast<double>(hashes) * law.probability(off);
    const double written = t.number(r, "expected");
    if (!(std::abs(written - expected) <= 1e-9 * std::max(1.0, expected)))
      throw InputError(fmt::format(
          "row {}: expected {} disagrees with its recomputation hashes {} = {}",
          CsvTable::line_of(r), t.text(r, "expected"), law.kernel ? "k(t)" : "exp(-t/sigma)",
          format_value(expected)));
    const auto key = std::tuple{n, sigma, region};
    auto [it, fresh] = index.try_emplace(key, groups.size());
    if (fresh) groups.push_back({n, hashes, batch, sigma, region, {}, {}, {}, law.kernel});
    CobinGroup& g = groups[it->second];
    if (g.hashes != hashes || g.batch != batch)
      throw InputError(
          fmt::format("row {}: the rows of {} must share one hash set (hashes and batch differ)",
                      CsvTable::line_of(r), cobin_group_name(g)));
    if (std::find(g.t.begin(), g.t.end(), off) != g.t.end())
      throw InputError(fmt::format("row {}: offset t = {} appears twice in {}",
                                   CsvTable::line_of(r), off, cobin_group_name(g)));
    g.t.push_back(off);
    g.cobinned.push_back(k);
    g.sumsq.push_back(sumsq);
  }
  return groups;
}

}  // namespace unbiasedness_checks

std::vector<CheckOutcome> check_unbiasedness_table(const CsvTable& table, double alpha) {
  const std::vector<CobinGroup> groups = unbiasedness_checks::read_groups(table);
  if (groups.empty()) return {{"unbiasedness", Verdict::kFail, "the table has no rows"}};
  return check_cobin_groups(groups, alpha);
}

}  // namespace poslsh
