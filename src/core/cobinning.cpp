#include <poslsh/cobinning.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <stdexcept>

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
  throw std::invalid_argument("cobinning: unknown region '" + printable(name) +
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

std::vector<std::int64_t> cobin_offsets(std::int64_t n, double sigma, int points) {
  if (n < 4) throw std::invalid_argument("cobinning: n must be >= 4");
  if (!std::isfinite(sigma) || !(sigma > 0))
    throw std::invalid_argument("cobinning: sigma must be a finite number > 0");
  if (points < 1) throw std::invalid_argument("cobinning: points must be >= 1");
  const double top = std::min(6 * sigma, static_cast<double>(n / 2 - 1));
  std::vector<std::int64_t> t;
  for (int j = 1; j <= points; ++j) {
    const auto v = static_cast<std::int64_t>(std::llround(top * j / points));
    if (v >= 1 && (t.empty() || v > t.back())) t.push_back(v);
  }
  if (t.empty()) t.push_back(1);
  return t;
}

double cobin_probability(double sigma, std::int64_t t) {
  return std::exp(-static_cast<double>(t) / sigma);
}

std::int64_t cobin_run(const PositionalHash& h, CobinRegion region, std::int64_t n) {
  const std::int64_t a = cobin_anchor(region, n);
  if (region == CobinRegion::kEnd) return a - block_begin(h, a) + 1;
  return block_end(h, a, n) - a;
}

CobinCounts::CobinCounts(std::vector<std::int64_t> offsets, std::int64_t batch)
    : offsets_(std::move(offsets)), batch_(batch) {
  if (batch_ < 1) throw std::invalid_argument("cobinning: batch must be >= 1");
  for (auto t : offsets_)
    if (t < 1) throw std::invalid_argument("cobinning: offsets must be >= 1");
  cobinned_.assign(offsets_.size(), 0);
  batch_sumsq_.assign(offsets_.size(), 0);
  current_.assign(offsets_.size(), 0);
}

void CobinCounts::add_run(std::int64_t run) {
  for (std::size_t j = 0; j < offsets_.size(); ++j) current_[j] += offsets_[j] < run;
  if (++pending_ < batch_) return;
  for (std::size_t j = 0; j < offsets_.size(); ++j) {
    cobinned_[j] += current_[j];
    batch_sumsq_[j] += current_[j] * current_[j];
    current_[j] = 0;
  }
  hashes_ += batch_;
  pending_ = 0;
}

double binomial_two_sided_p(std::int64_t k, std::int64_t h, double p) {
  const boost::math::binomial_distribution<double> b(static_cast<double>(h), p);
  const double lower = boost::math::cdf(b, static_cast<double>(k));
  const double upper =
      k == 0 ? 1.0 : boost::math::cdf(boost::math::complement(b, static_cast<double>(k - 1)));
  return std::min(1.0, 2 * std::min(lower, upper));
}

namespace {

double normal_two_sided_p(double z) {
  const boost::math::normal_distribution<double> nd;
  return std::min(1.0, 2 * boost::math::cdf(boost::math::complement(nd, std::abs(z))));
}

// Per-hash mean and variance of sum_t 1[R > t] when P(R > t) = exp(-t / sigma).
std::pair<double, double> pooled_moments(std::span<const std::int64_t> offsets, double sigma) {
  double mean = 0, var = 0;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const double pi = cobin_probability(sigma, offsets[i]);
    mean += pi;
    for (std::size_t j = 0; j < offsets.size(); ++j) {
      const double pj = cobin_probability(sigma, offsets[j]);
      var += std::min(pi, pj) - pi * pj;
    }
  }
  return {mean, var};
}

}  // namespace

PooledScaleTest pooled_scale_test(std::span<const std::int64_t> offsets,
                                  std::span<const std::int64_t> cobinned, std::int64_t hashes,
                                  double sigma) {
  if (offsets.size() != cobinned.size())
    throw std::invalid_argument("pooled_scale_test: offsets and counts differ in size");
  const auto [mean, var] = pooled_moments(offsets, sigma);
  double total = 0;
  for (auto k : cobinned) total += static_cast<double>(k);
  const auto h = static_cast<double>(hashes);
  PooledScaleTest r;
  r.ratio = total / (h * mean);
  r.z = var > 0 ? (total - h * mean) / std::sqrt(h * var) : 0.0;
  r.p_value = normal_two_sided_p(r.z);
  return r;
}

DispersionTest dispersion_test(std::int64_t cobinned, std::int64_t batch_sumsq, std::int64_t hashes,
                               std::int64_t batch, double p) {
  DispersionTest r;
  const double m = static_cast<double>(batch);
  const double batches = static_cast<double>(hashes / batch);
  // Applicability is decided by the design (the null p), never by the data.
  r.applicable = m * std::min(p, 1 - p) >= 2 && batches >= 100;
  if (!r.applicable) return r;
  // Centred on the observed mean, so that a wrong mean (the mean and scale
  // tests' business) does not show up here: only dependence between hashes.
  const double k = static_cast<double>(cobinned), sumsq = static_cast<double>(batch_sumsq);
  const double ph = k / (batches * m), qh = 1 - ph;
  const double observed = sumsq - k * k / batches;
  const double mpq = m * ph * qh;
  const double expected = (batches - 1) * mpq;
  const double mu4 = mpq * (1 + 3 * (m - 2) * ph * qh);
  const double var = batches * (mu4 - mpq * mpq);
  if (!(var > 0)) {  // every batch count 0 or m: no variance to compare
    r.z = observed > 0 ? INFINITY : 0;
    r.ratio = 1;
    r.p_value = observed > 0 ? 0 : 1;
    return r;
  }
  r.z = (observed - expected) / std::sqrt(var);
  r.ratio = observed / expected;
  r.p_value = normal_two_sided_p(r.z);
  return r;
}

double detectable_scale_error(std::span<const std::int64_t> offsets, std::int64_t hashes,
                              double sigma, double alpha, double power) {
  const boost::math::normal_distribution<double> nd;
  const double z_alpha = boost::math::quantile(boost::math::complement(nd, alpha / 2));
  const double z_power = boost::math::quantile(nd, power);
  const auto h = static_cast<double>(hashes);
  // (Named variables, not a structured binding: clang before 16 cannot
  // capture one in a lambda, and the fuzz build compiles this file with clang 14.)
  const std::pair<double, double> null_moments = pooled_moments(offsets, sigma);
  const double mean0 = null_moments.first, var0 = null_moments.second;
  // Detected with the given power at scale c when the mean shift clears the
  // null's critical value by z_power standard deviations of the alternative.
  const auto detected = [&](double c) {
    const auto [mean_c, var_c] = pooled_moments(offsets, c * sigma);
    return h * std::abs(mean_c - mean0) - z_alpha * std::sqrt(h * var0) >=
           z_power * std::sqrt(h * var_c);
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
