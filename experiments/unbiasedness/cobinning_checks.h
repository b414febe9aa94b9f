// The three co-binning checks (mean, scale, dispersion) on counts in memory:
// what `poslsh check` runs on an unbiasedness table (unbiasedness.h reads the
// table into these groups) and what `poslsh verify` and the Python module's
// verify_hashes / verify_blocks run on counts they make themselves. On the
// core alone, so the Python module links it (poslsh_verification).
#pragma once


#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/checks/check_verdict.h"
#include "experiments/unbiasedness/cobinning.h"

namespace poslsh {

// One (n, sigma, region) group: H hashes in batches of `batch`, at the
// offsets t[j], co-binned cobinned[j] times with batch sum of squares sumsq[j].
// Tested against exp(-t/sigma), or against `kernel` (at scale sigma) when set.
struct CobinGroup {
  std::int64_t n = 0, hashes = 0, batch = 0;
  double sigma = 0;
  std::string region;
  std::vector<std::int64_t> t, cobinned, sumsq;
  std::optional<Kernel> kernel = std::nullopt;
};

// The probability the group's law gives offset t.
double group_probability(const CobinGroup& group, std::int64_t t);

// The group of one anchor's counts (cobinning.h), named `region`.
CobinGroup cobin_group(std::int64_t n, double sigma, const std::string& region,
                       const CobinCounts& counts);

// "n=N,sigma=S,REGION": the bracket of the group's check names.
std::string cobin_group_name(const CobinGroup& group);

// The checks, per group, with alpha split in three equal shares (Bonferroni):
//  1. mean: every offset's count against Binomial(hashes, exp(-t/sigma)),
//     exact two-sided p-value >= (alpha/3) / rows (offsets of all groups);
//  2. scale: the pooled count over the group's offsets, a sum over hashes of
//     i.i.d. copies of Y = #{offsets t_j < R} whose law is known exactly;
//     two-sided p-value min(1, 2 e^(-N I)) from the Chernoff bound of that
//     law (valid at every hash count, no normal approximation; docs/MATH.md
//     §9) >= (alpha/3) / groups (the z it prints is for reading only);
//  3. dispersion: the batch sum of squares of every applicable offset
//     (stats::dispersion_test: the Chernoff bound of the exactly known law of one
//     batch's squared deviation) two-sided p-value >= (alpha/3) / applicable
//     rows.
// Three outcomes per group, in group order.
std::vector<CheckOutcome> check_cobin_groups(const std::vector<CobinGroup>& groups, double alpha);

// The two-sided level of each scale test among `groups` groups checked at
// `alpha`: (alpha / 3) / groups.
double cobin_scale_level(double alpha, std::size_t groups);

}  // namespace poslsh
