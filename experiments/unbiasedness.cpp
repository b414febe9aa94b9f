#include "experiments/unbiasedness.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "runner/cli_common.h"

namespace poslsh {

const std::vector<std::string>& unbiasedness_columns() {
  static const std::vector<std::string> columns = {
      "n",      "sigma", "region",   "anchor",   "t",
      "hashes", "batch", "cobinned", "expected", "batch_cobinned_sumsq"};
  return columns;
}

std::vector<CsvRow> unbiasedness_rows(std::int64_t n, double sigma, CobinRegion region,
                                      const CobinCounts& counts) {
  std::vector<CsvRow> rows;
  const std::string n_text = std::to_string(n), sigma_text = format_double(sigma),
                    region_text = cobin_region_name(region),
                    anchor_text = std::to_string(cobin_anchor(region, n)),
                    hashes_text = std::to_string(counts.hashes()),
                    batch_text = std::to_string(counts.batch());
  for (std::size_t j = 0; j < counts.offsets().size(); ++j) {
    const std::int64_t t = counts.offsets()[j];
    rows.push_back(
        {n_text, sigma_text, region_text, anchor_text, std::to_string(t), hashes_text, batch_text,
         std::to_string(counts.cobinned()[j]),
         format_double(static_cast<double>(counts.hashes()) * cobin_probability(sigma, t)),
         std::to_string(counts.batch_sumsq()[j])});
  }
  return rows;
}

std::vector<CsvRow> unbiasedness_cell_rows(std::int64_t n, double sigma, std::int64_t hashes,
                                           std::int64_t batch, int points, const HashDrawer& draw) {
  const auto offsets = cobin_offsets(n, sigma, points);
  std::vector<CobinCounts> counts;
  for (std::size_t r = 0; r < all_cobin_regions().size(); ++r) counts.emplace_back(offsets, batch);
  for (std::int64_t k = 0; k < hashes; ++k) {
    const PositionalHash h = draw(0, static_cast<std::uint64_t>(k), sigma);
    for (std::size_t r = 0; r < counts.size(); ++r)
      counts[r].add_run(cobin_run(h, all_cobin_regions()[r], n));
  }
  std::vector<CsvRow> rows;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    auto part = unbiasedness_rows(n, sigma, all_cobin_regions()[r], counts[r]);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

namespace {

// Counts and positions are integers in [0, 2^53): exact in a double.
constexpr std::int64_t kMaxCell = std::int64_t{1} << 53;

struct UnbiasednessGroup {
  std::int64_t n = 0, hashes = 0, batch = 0;
  double sigma = 0;
  std::string region;
  std::vector<std::int64_t> t, cobinned, sumsq;
  std::vector<std::size_t> rows;
};

std::string unbiasedness_group_name(const UnbiasednessGroup& g) {
  return fmt::format("n={},sigma={},{}", g.n, format_double(g.sigma), g.region);
}

std::vector<UnbiasednessGroup> read_groups(const CsvTable& t) {
  std::map<std::tuple<std::int64_t, double, std::string>, std::size_t> index;
  std::vector<UnbiasednessGroup> groups;
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::int64_t n = t.integer(r, "n", 0, kMaxCell);
    const double sigma = t.number(r, "sigma");
    if (!std::isfinite(sigma) || !(sigma > 0))
      throw InputError(fmt::format("row {}: sigma must be finite and > 0", CsvTable::line_of(r)));
    const std::string region = t.text(r, "region");
    const CobinRegion reg = parse_cobin_region(region);
    if (n < 4) throw InputError(fmt::format("row {}: n must be >= 4", CsvTable::line_of(r)));
    const std::int64_t anchor = t.integer(r, "anchor", 0, kMaxCell);
    if (anchor != cobin_anchor(reg, n))
      throw InputError(fmt::format("row {}: anchor {} is not the {} anchor {} of n = {}",
                                   CsvTable::line_of(r), anchor, region, cobin_anchor(reg, n), n));
    const std::int64_t off = t.integer(r, "t", 0, kMaxCell);
    const bool room = reg == CobinRegion::kEnd ? anchor - off >= 0 : anchor + off <= n - 1;
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
    const double expected = static_cast<double>(hashes) * cobin_probability(sigma, off);
    const double written = t.number(r, "expected");
    if (!(std::abs(written - expected) <= 1e-9 * std::max(1.0, expected)))
      throw InputError(fmt::format(
          "row {}: expected {} disagrees with its recomputation hashes exp(-t/sigma) = {}",
          CsvTable::line_of(r), t.text(r, "expected"), format_double(expected)));
    const auto key = std::tuple{n, sigma, region};
    auto [it, fresh] = index.try_emplace(key, groups.size());
    if (fresh) groups.push_back({n, hashes, batch, sigma, region, {}, {}, {}, {}});
    UnbiasednessGroup& g = groups[it->second];
    if (g.hashes != hashes || g.batch != batch)
      throw InputError(
          fmt::format("row {}: the rows of {} must share one hash set (hashes and batch differ)",
                      CsvTable::line_of(r), unbiasedness_group_name(g)));
    if (std::find(g.t.begin(), g.t.end(), off) != g.t.end())
      throw InputError(fmt::format("row {}: offset t = {} appears twice in {}",
                                   CsvTable::line_of(r), off, unbiasedness_group_name(g)));
    g.t.push_back(off);
    g.cobinned.push_back(k);
    g.sumsq.push_back(sumsq);
    g.rows.push_back(r);
  }
  return groups;
}

}  // namespace

double cobin_scale_level(double alpha, std::size_t groups) {
  return alpha / 3 / static_cast<double>(groups);
}

std::vector<CheckOutcome> check_unbiasedness_table(const CsvTable& table, double alpha) {
  const std::vector<UnbiasednessGroup> groups = read_groups(table);
  std::vector<CheckOutcome> out;
  if (groups.empty()) {
    out.push_back({"unbiasedness", Verdict::kFail, "the table has no rows"});
    return out;
  }
  const double share = alpha / 3;
  std::size_t rows = 0, dispersion_rows = 0;
  for (const auto& g : groups) {
    rows += g.t.size();
    for (std::size_t j = 0; j < g.t.size(); ++j)
      dispersion_rows += dispersion_test(g.cobinned[j], g.sumsq[j], g.hashes, g.batch,
                                         cobin_probability(g.sigma, g.t[j]))
                             .applicable;
  }
  const double mean_level = share / static_cast<double>(rows);
  const double scale_level = cobin_scale_level(alpha, groups.size());
  const double disp_level = share / static_cast<double>(std::max<std::size_t>(dispersion_rows, 1));

  for (const auto& g : groups) {
    const std::string name = unbiasedness_group_name(g);
    // 1. Mean, offset by offset.
    double worst_p = 2;
    std::size_t worst = 0;
    for (std::size_t j = 0; j < g.t.size(); ++j) {
      const double pv =
          binomial_two_sided_p(g.cobinned[j], g.hashes, cobin_probability(g.sigma, g.t[j]));
      if (pv < worst_p) worst_p = pv, worst = j;
    }
    const double p_w = cobin_probability(g.sigma, g.t[worst]);
    out.push_back(
        {fmt::format("cobin-mean[{}]", name),
         worst_p >= mean_level ? Verdict::kPass : Verdict::kFail,
         fmt::format("{} hashes, {} offsets t in [{}, {}]; smallest exact binomial p = {:.3g} at "
                     "t = {} (co-binned fraction {:.5f} vs exp(-t/sigma) = {:.5f}); needs >= "
                     "{:.2g} (family-wise false alarm {:.2g} over {} rows)",
                     g.hashes, g.t.size(), g.t.front(), g.t.back(), worst_p, g.t[worst],
                     static_cast<double>(g.cobinned[worst]) / static_cast<double>(g.hashes), p_w,
                     mean_level, share, rows)});
    // 2. Scale, pooled over offsets.
    const PooledScaleTest pooled = pooled_scale_test(g.t, g.cobinned, g.hashes, g.sigma);
    out.push_back(
        {fmt::format("cobin-scale[{}]", name),
         pooled.p_value >= scale_level ? Verdict::kPass : Verdict::kFail,
         fmt::format("pooled co-binned count / expected = {:.5f}, z = {:.2f}, p = "
                     "{:.3g}; needs >= {:.2g} (family-wise {:.2g} over {} groups); "
                     "detects a kernel-scale error of {:.2g} with power 0.99",
                     pooled.ratio, pooled.z, pooled.p_value, scale_level, share, groups.size(),
                     detectable_scale_error(g.t, g.hashes, g.sigma, scale_level, 0.99))});
    // 3. Dispersion across batches.
    double worst_dp = 2, worst_ratio = 1;
    std::int64_t worst_t = 0;
    std::size_t tested = 0;
    for (std::size_t j = 0; j < g.t.size(); ++j) {
      const DispersionTest d = dispersion_test(g.cobinned[j], g.sumsq[j], g.hashes, g.batch,
                                               cobin_probability(g.sigma, g.t[j]));
      if (!d.applicable) continue;
      ++tested;
      if (d.p_value < worst_dp) worst_dp = d.p_value, worst_ratio = d.ratio, worst_t = g.t[j];
    }
    const std::string dname = fmt::format("cobin-dispersion[{}]", name);
    if (tested == 0) {
      out.push_back({dname, Verdict::kNotApplicable,
                     fmt::format("no offset with batch min(p, 1-p) >= 2 and >= 100 batches of {} "
                                 "(use more hashes or a larger batch)",
                                 g.batch)});
      continue;
    }
    out.push_back({dname, worst_dp >= disp_level ? Verdict::kPass : Verdict::kFail,
                   fmt::format("{} batches of {} hashes, {} offsets tested; most extreme at t = "
                               "{}: batch variance / binomial = {:.4f}, p = {:.3g}; needs >= "
                               "{:.2g} (family-wise {:.2g} over {} rows)",
                               g.hashes / g.batch, g.batch, tested, worst_t, worst_ratio, worst_dp,
                               disp_level, share, dispersion_rows)});
  }
  return out;
}

namespace {

Action add_unbiasedness_command(CLI::App& parent) {
  struct Options {
    std::vector<std::int64_t> n;
    std::vector<double> sigma;
    std::int64_t hashes = std::int64_t{1} << 19, batch = 16;
    int points = 24;
    std::uint64_t seed = 0;
    SweepOptions sweep;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = parent.add_subcommand(
      "unbiasedness", "Co-binning counts vs exp(-t/sigma): E[M] = L* tested pair by pair");
  cmd->add_option("--n", o->n, "Context lengths n (>= 4); anchors at 0, n/2 and n-1")
      ->required()
      ->delimiter(',');
  cmd->add_option("--sigma", o->sigma, "ALiBi scales sigma = 1/slope (> 0)")
      ->required()
      ->delimiter(',');
  cmd->add_option("--hashes", o->hashes,
                  "Hashes per (n, sigma): draw_hash(seed, 0, k, sigma), k < H (a multiple of "
                  "--batch)")
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "Consecutive hashes per batch of the dispersion test (>= 1)")
      ->capture_default_str();
  cmd->add_option("--points", o->points, "Offsets t per sigma, spread over [1, 6 sigma] (>= 1)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  add_sweep_options(*cmd, o->sweep);
  return [o, cmd] {
    require_nonempty("--n", o->n.size());
    require_at_least("--n", o->n, 4);
    require_positive_finite("--sigma", o->sigma);
    require_at_least("--batch", o->batch, 1);
    require_at_least("--points", o->points, 1);
    if (o->hashes < o->batch || o->hashes % o->batch != 0)
      throw UsageError(fmt::format("--hashes must be a positive multiple of --batch ({}), got {}",
                                   o->batch, o->hashes));
    Sweep sweep;
    sweep.experiment = "unbiasedness";
    sweep.columns = unbiasedness_columns();
    sweep.num_cells = o->n.size() * o->sigma.size();
    const auto params = [o](std::size_t cell) {
      return std::pair{o->n[cell / o->sigma.size()], o->sigma[cell % o->sigma.size()]};
    };
    sweep.label = [params](std::size_t cell) {
      const auto [n, sigma] = params(cell);
      return fmt::format("n={} sigma={}", n, format_double(sigma));
    };
    sweep.run_cell = [o, params](std::size_t cell) {
      const auto [n, sigma] = params(cell);
      return unbiasedness_cell_rows(n, sigma, o->hashes, o->batch, o->points, hash_drawer(o->seed));
    };
    sweep.resolved_config = resolved_config(*cmd);
    sweep.seed = o->seed;
    return run_sweep(sweep, o->sweep);
  };
}

const bool registered_unbiasedness = register_experiment({
    .name = "unbiasedness",
    .summary = "Co-binning counts vs exp(-t/sigma): E[M] = L* tested pair by pair",
    .add_command = add_unbiasedness_command,
    .add_bench = {},
    .checker = {.required_columns = unbiasedness_columns(),
                .run = [](const CsvTable& t,
                          double alpha) { return check_unbiasedness_table(t, alpha); }},
});

}  // namespace

}  // namespace poslsh
