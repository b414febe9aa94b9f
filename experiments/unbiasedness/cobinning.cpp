#include "experiments/unbiasedness/cobinning.h"

#include <poslsh/argument_error.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <stdexcept>

#include "experiments/oracles/reference_blocks.h"
#include "internal/printable.h"
#include "stats/chernoff.h"

namespace poslsh {

const std::vector<CobinRegion>& all_cobin_regions() {
  static const std::vector<CobinRegion> all = {CobinRegion::kStart, CobinRegion::kMiddle,
                                               CobinRegion::kEnd};
  return all;
}

std::string cobin_region_name(CobinRegion region) {
  switch (region) {
    case CobinRegion::kStart:
      return "start";
    case CobinRegion::kMiddle:
      return "middle";
    case CobinRegion::kEnd:
      return "end";
  }
  return "?";
}

CobinRegion parse_cobin_region(const std::string& name) {
  for (CobinRegion r : all_cobin_regions())
    if (cobin_region_name(r) == name) return r;
  throw InputError("cobinning: unknown region '" + detail::printable(name) +
                   "' (accepted: start, middle, end)");
}

std::int64_t cobin_anchor(CobinRegion region, std::int64_t n) {
  switch (region) {
    case CobinRegion::kStart:
      return 0;
    case CobinRegion::kMiddle:
      return n / 2;
    case CobinRegion::kEnd:
      return n - 1;
  }
  return 0;
}

namespace {

// The first t at which k(t) <= e^-6 (at most 2^52; the kernel's whole range
// when it never falls that low).
double kernel_reach(const Kernel& kernel) {
  if (kernel.family() == KernelFamily::kLaplace) return 6 * kernel.scale();
  const double floor_k = std::exp(-6.0);
  double hi = 1;
  while (hi < 0x1p52 && kernel(hi) > floor_k) hi *= 2;
  double lo = hi / 2;
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (kernel(mid) > floor_k ? lo : hi) = mid;
  }
  return hi;
}

std::vector<std::int64_t> spread_offsets(std::int64_t n, double reach, int points) {
  const double top = std::min(reach, static_cast<double>(n / 2 - 1));
  // t = 1 always: an even grid of offsets (4, 8, ... at sigma = 16) cannot see
  // positions rounded to a grid of 2 (float32 past 2^24), t = 1 can.
  std::vector<std::int64_t> t = {1};
  for (int j = 1; j <= points; ++j) {
    const auto v = static_cast<std::int64_t>(std::llround(top * j / points));
    if (v > t.back()) t.push_back(v);
  }
  return t;
}

}  // namespace

std::vector<std::int64_t> cobin_offsets(std::int64_t n, double sigma, int points) {
  check::at_least("n", n, 4);
  check::positive_finite("sigma", sigma);
  check::at_least("points", points, 1);
  return spread_offsets(n, 6 * sigma, points);
}

std::vector<std::int64_t> cobin_offsets(std::int64_t n, const Kernel& kernel, int points) {
  check::at_least("n", n, 4);
  check::at_least("points", points, 1);
  return spread_offsets(n, kernel_reach(kernel), points);
}

double cobin_probability(double sigma, std::int64_t t) {
  return std::exp(-static_cast<double>(t) / sigma);
}

double cobin_probability(const Kernel& kernel, std::int64_t t) {
  return kernel(static_cast<double>(t));
}

std::int64_t cobin_run(const PositionalHash& h, CobinRegion region, std::int64_t n) {
  return cobin_run_at(h, cobin_anchor(region, n), region == CobinRegion::kEnd, n);
}

std::int64_t cobin_run_at(const PositionalHash& h, std::int64_t a, bool backward, std::int64_t n) {
  return backward ? a - reference_block_begin(h, a) + 1 : reference_block_end(h, a, n) - a;
}

std::vector<std::int64_t> cobin_large_anchors(std::int64_t n) {
  std::vector<std::int64_t> anchors;
  for (const int bits : {24, 31, 32}) {
    const std::int64_t a = (std::int64_t{1} << bits) + 1;
    if (a <= n / 2) anchors.push_back(a);
  }
  return anchors;
}

CobinCounts::CobinCounts(std::vector<std::int64_t> offsets, std::int64_t batch)
    : offsets_(std::move(offsets)), batch_(batch) {
  check::at_least("batch", batch_, 1);
  for (auto t : offsets_) check::at_least("offsets", t, 1);
  cobinned_.assign(offsets_.size(), 0);
  batch_sumsq_.assign(offsets_.size(), 0);
  current_.assign(offsets_.size(), 0);
}

void CobinCounts::add_run(std::int64_t run) {
  for (std::size_t j = 0; j < offsets_.size(); ++j) current_[j] += offsets_[j] < run;
  close_hash();
}

void CobinCounts::add_cobinned(const std::vector<bool>& cobinned) {
  if (cobinned.size() != offsets_.size())
    throw std::logic_error("cobinning: one indicator per offset is needed");
  for (std::size_t j = 0; j < offsets_.size(); ++j) current_[j] += cobinned[j];
  close_hash();
}

void CobinCounts::close_hash() {
  if (++pending_ < batch_) return;
  for (std::size_t j = 0; j < offsets_.size(); ++j) {
    cobinned_[j] += current_[j];
    batch_sumsq_[j] += current_[j] * current_[j];
    current_[j] = 0;
  }
  hashes_ += batch_;
  pending_ = 0;
}

// P(Y >= j) = exp(-t_j / sigma) for the offsets in increasing order: the law
// of the number of offsets one hash co-bins, Y = #{t : t < R}.
stats::FiniteLaw pooled_law(std::span<const std::int64_t> offsets, const Kernel& kernel) {
  std::vector<std::int64_t> t(offsets.begin(), offsets.end());
  std::sort(t.begin(), t.end());
  stats::FiniteLaw law;
  double above = 1;  // P(Y >= j)
  for (std::size_t j = 0; j <= t.size(); ++j) {
    const double next = j < t.size() ? cobin_probability(kernel, t[j]) : 0.0;
    law.value.push_back(static_cast<double>(j));
    law.prob.push_back(above - next);
    above = next;
  }
  return law;
}

PooledScaleTest pooled_scale_test(std::span<const std::int64_t> offsets,
                                  std::span<const std::int64_t> cobinned, std::int64_t hashes,
                                  double sigma) {
  return pooled_scale_test(offsets, cobinned, hashes, Kernel::laplace(sigma));
}

PooledScaleTest pooled_scale_test(std::span<const std::int64_t> offsets,
                                  std::span<const std::int64_t> cobinned, std::int64_t hashes,
                                  const Kernel& kernel) {
  if (offsets.size() != cobinned.size())
    throw std::logic_error("pooled_scale_test: offsets and counts differ in size");
  const stats::FiniteLaw law = pooled_law(offsets, kernel);
  const double mean = law.mean(), var = stats::variance(law);
  double total = 0;
  for (auto k : cobinned) total += static_cast<double>(k);
  const auto h = static_cast<double>(hashes);
  PooledScaleTest r;
  r.ratio = total / (h * mean);
  r.z = var > 0 ? (total - h * mean) / std::sqrt(h * var) : 0.0;
  r.p_value = stats::chernoff_two_sided_p(law, total, h);
  return r;
}

double detectable_scale_error(std::span<const std::int64_t> offsets, std::int64_t hashes,
                              double sigma, double alpha, double power) {
  return detectable_scale_error(offsets, hashes, Kernel::laplace(sigma), alpha, power);
}

double detectable_scale_error(std::span<const std::int64_t> offsets, std::int64_t hashes,
                              const Kernel& kernel, double alpha, double power) {
  const boost::math::normal_distribution<double> nd;
  const double z_power = boost::math::quantile(nd, power);
  const auto h = static_cast<double>(hashes);
  const stats::FiniteLaw null_law = pooled_law(offsets, kernel);
  const double mean0 = null_law.mean();
  // The Chernoff test's critical deviations of the pooled mean, per side.
  const double up = stats::chernoff_critical_deviation(null_law, h, alpha, 1),
               down = stats::chernoff_critical_deviation(null_law, h, alpha, -1);
  // Detected with the given power at scale c when the mean shift clears the
  // critical deviation by z_power standard deviations of the alternative
  // (normal approximation of the alternative's pooled count).
  const auto detected = [&](double c) {
    const stats::FiniteLaw alt = pooled_law(offsets, kernel.with_pitch_scaled(c));
    const double shift = alt.mean() - mean0;
    const double crit = shift > 0 ? up : down;
    return h * (std::abs(shift) - crit) >= z_power * std::sqrt(h * stats::variance(alt));
  };
  double worst = 0;
  for (const double limit : {2.0, 0.5}) {
    if (!detected(limit)) return INFINITY;
    double near = 1.0, far = limit;
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (near + far);
      (detected(mid) ? far : near) = mid;
    }
    worst = std::max(worst, std::abs(far - 1));
  }
  return worst;
}

}  // namespace poslsh
