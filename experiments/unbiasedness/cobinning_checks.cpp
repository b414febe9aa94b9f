#include "experiments/unbiasedness/cobinning_checks.h"
#include "stats/dispersion.h"
#include "stats/binomial.h"

#include <fmt/format.h>
#include <poslsh/argument_error.h>

#include <algorithm>

namespace poslsh {

CobinGroup cobin_group(std::int64_t n, double sigma, const std::string& region,
                       const CobinCounts& counts) {
  return {n,      counts.hashes(),  counts.batch(),    sigma,
          region, counts.offsets(), counts.cobinned(), counts.batch_sumsq()};
}

std::string cobin_group_name(const CobinGroup& g) {
  const bool laplace = !g.kernel || g.kernel->family() == KernelFamily::kLaplace;
  return fmt::format("n={},sigma={},{}{}", g.n, format_value(g.sigma), g.region,
                     laplace ? "" : ",kernel=" + g.kernel->family_name());
}

double group_probability(const CobinGroup& g, std::int64_t t) {
  return g.kernel ? cobin_probability(*g.kernel, t) : cobin_probability(g.sigma, t);
}

double cobin_scale_level(double alpha, std::size_t groups) {
  return alpha / 3 / static_cast<double>(groups);
}

namespace {

// The levels of the three tests: alpha split in three shares, each share by
// Bonferroni over the rows, groups or applicable rows it covers.
struct CobinLevels {
  double share = 0, mean = 0, scale = 0, dispersion = 0;
  std::size_t rows = 0, groups = 0, dispersion_rows = 0;
};

CobinLevels cobin_levels(const std::vector<CobinGroup>& groups, double alpha) {
  CobinLevels l;
  l.share = alpha / 3;
  l.groups = groups.size();
  for (const auto& g : groups) {
    l.rows += g.t.size();
    for (std::size_t j = 0; j < g.t.size(); ++j)
      l.dispersion_rows += stats::dispersion_test(g.cobinned[j], g.sumsq[j], g.hashes, g.batch,
                                           group_probability(g, g.t[j]))
                               .applicable;
  }
  l.mean = l.share / static_cast<double>(l.rows);
  l.scale = cobin_scale_level(alpha, groups.size());
  l.dispersion = l.share / static_cast<double>(std::max<std::size_t>(l.dispersion_rows, 1));
  return l;
}

// 1. Mean, offset by offset.
CheckOutcome mean_outcome(const CobinGroup& g, const CobinLevels& l) {
  double worst_p = 2;
  std::size_t worst = 0;
  for (std::size_t j = 0; j < g.t.size(); ++j) {
    const double pv =
        stats::binomial_two_sided_p(g.cobinned[j], g.hashes, group_probability(g, g.t[j]));
    if (pv < worst_p) worst_p = pv, worst = j;
  }
  const double p_w = group_probability(g, g.t[worst]);
  return {fmt::format("cobin-mean[{}]", cobin_group_name(g)),
          worst_p >= l.mean ? Verdict::kPass : Verdict::kFail,
          fmt::format("{} hashes, {} offsets t in [{}, {}]; smallest exact binomial p = {:.3g} at "
                      "t = {} (co-binned fraction {:.5f} vs {} = {:.5f}); needs >= "
                      "{:.2g} (family-wise false alarm {:.2g} over {} rows)",
                      g.hashes, g.t.size(), g.t.front(), g.t.back(), worst_p, g.t[worst],
                      static_cast<double>(g.cobinned[worst]) / static_cast<double>(g.hashes),
                      g.kernel ? "k(t)" : "exp(-t/sigma)", p_w,
                      l.mean, l.share, l.rows)};
}

// 2. Scale, pooled over offsets.
CheckOutcome scale_outcome(const CobinGroup& g, const CobinLevels& l) {
  const PooledScaleTest pooled = g.kernel ? pooled_scale_test(g.t, g.cobinned, g.hashes, *g.kernel)
                                          : pooled_scale_test(g.t, g.cobinned, g.hashes, g.sigma);
  return {fmt::format("cobin-scale[{}]", cobin_group_name(g)),
          pooled.p_value >= l.scale ? Verdict::kPass : Verdict::kFail,
          fmt::format("{} hashes: pooled co-binned count / expected = {:.5f}, z = {:.2f}, p = "
                      "{:.3g}; needs >= {:.2g} (family-wise {:.2g} over {} groups); "
                      "detects a kernel-scale error of {:.2g} with power 0.99",
                      g.hashes, pooled.ratio, pooled.z, pooled.p_value, l.scale, l.share, l.groups,
                      (g.kernel ? detectable_scale_error(g.t, g.hashes, *g.kernel, l.scale, 0.99)
                                : detectable_scale_error(g.t, g.hashes, g.sigma, l.scale, 0.99)))};
}

// 3. Dispersion across batches.
CheckOutcome dispersion_outcome(const CobinGroup& g, const CobinLevels& l) {
  double worst_dp = 2, worst_ratio = 1;
  std::int64_t worst_t = 0;
  std::size_t tested = 0;
  for (std::size_t j = 0; j < g.t.size(); ++j) {
    const stats::DispersionTest d = stats::dispersion_test(g.cobinned[j], g.sumsq[j], g.hashes, g.batch,
                                             group_probability(g, g.t[j]));
    if (!d.applicable) continue;
    ++tested;
    if (d.p_value < worst_dp) worst_dp = d.p_value, worst_ratio = d.ratio, worst_t = g.t[j];
  }
  const std::string name = fmt::format("cobin-dispersion[{}]", cobin_group_name(g));
  if (tested == 0)
    return {name, Verdict::kNotApplicable,
            fmt::format("no offset with batch min(p, 1-p) >= 2 and >= 100 batches of {} "
                        "(use more hashes or a larger batch)",
                        g.batch),
            "use more hashes or a larger --batch"};
  return {name, worst_dp >= l.dispersion ? Verdict::kPass : Verdict::kFail,
          fmt::format("{} batches of {} hashes, {} offsets tested; most extreme at t = "
                      "{}: batch variance / binomial = {:.4f}, p = {:.3g}; needs >= "
                      "{:.2g} (family-wise {:.2g} over {} rows)",
                      g.hashes / g.batch, g.batch, tested, worst_t, worst_ratio, worst_dp,
                      l.dispersion, l.share, l.dispersion_rows)};
}

}  // namespace

std::vector<CheckOutcome> check_cobin_groups(const std::vector<CobinGroup>& groups, double alpha) {
  const CobinLevels levels = cobin_levels(groups, alpha);
  std::vector<CheckOutcome> out;
  for (const auto& g : groups) {
    out.push_back(mean_outcome(g, levels));
    out.push_back(scale_outcome(g, levels));
    out.push_back(dispersion_outcome(g, levels));
  }
  return out;
}

}  // namespace poslsh
