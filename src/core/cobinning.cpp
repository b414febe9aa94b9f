#include <poslsh/argument_error.h>
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
  throw InputError("cobinning: unknown region '" + printable(name) +
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
  check::at_least("n", n, 4);
  check::positive_finite("sigma", sigma);
  check::at_least("points", points, 1);
  const double top = std::min(6 * sigma, static_cast<double>(n / 2 - 1));
  // t = 1 always: an even grid of offsets (4, 8, ... at sigma = 16) cannot see
  // positions rounded to a grid of 2 (float32 past 2^24), t = 1 can.
  std::vector<std::int64_t> t = {1};
  for (int j = 1; j <= points; ++j) {
    const auto v = static_cast<std::int64_t>(std::llround(top * j / points));
    if (v > t.back()) t.push_back(v);
  }
  return t;
}

double cobin_probability(double sigma, std::int64_t t) {
  return std::exp(-static_cast<double>(t) / sigma);
}

std::int64_t cobin_run(const PositionalHash& h, CobinRegion region, std::int64_t n) {
  return cobin_run_at(h, cobin_anchor(region, n), region == CobinRegion::kEnd, n);
}

std::int64_t cobin_run_at(const PositionalHash& h, std::int64_t a, bool backward, std::int64_t n) {
  return backward ? a - block_begin(h, a) + 1 : block_end(h, a, n) - a;
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

double binomial_two_sided_p(std::int64_t k, std::int64_t h, double p) {
  const boost::math::binomial_distribution<double> b(static_cast<double>(h), p);
  const double lower = boost::math::cdf(b, static_cast<double>(k));
  const double upper =
      k == 0 ? 1.0 : boost::math::cdf(boost::math::complement(b, static_cast<double>(k - 1)));
  return std::min(1.0, 2 * std::min(lower, upper));
}

double FiniteLaw::mean() const {
  double m = 0;
  for (std::size_t i = 0; i < value.size(); ++i) m += prob[i] * value[i];
  return m;
}

namespace {

// log E exp(lambda (V - mu)), shifted for stability.
double centred_log_mgf(const FiniteLaw& law, double mu, double lambda) {
  double top = -INFINITY;
  for (std::size_t i = 0; i < law.value.size(); ++i)
    if (law.prob[i] > 0) top = std::max(top, lambda * (law.value[i] - mu));
  double s = 0;
  for (std::size_t i = 0; i < law.value.size(); ++i)
    if (law.prob[i] > 0) s += law.prob[i] * std::exp(lambda * (law.value[i] - mu) - top);
  return top + std::log(s);
}

// Mean of V - mu under the law tilted by exp(lambda (V - mu)).
double tilted_centred_mean(const FiniteLaw& law, double mu, double lambda) {
  const double lm = centred_log_mgf(law, mu, lambda);
  double s = 0;
  for (std::size_t i = 0; i < law.value.size(); ++i)
    if (law.prob[i] > 0)
      s += law.prob[i] * (law.value[i] - mu) * std::exp(lambda * (law.value[i] - mu) - lm);
  return s;
}

// The rate I(mu + d) = sup_{lambda d >= 0} lambda d - log E exp(lambda (V - mu))
// for a deviation d of the mean (either sign). Any lambda gives a valid
// Chernoff bound, so an inexact optimiser only costs power, never validity.
double cramer_rate(const FiniteLaw& law, double d) {
  const double mu = law.mean();
  if (d == 0) return 0;
  const double dir = d > 0 ? 1 : -1;
  double edge = -INFINITY, edge_prob = 0;  // the extreme support point in direction dir
  for (std::size_t i = 0; i < law.value.size(); ++i) {
    if (!(law.prob[i] > 0)) continue;
    const double v = dir * (law.value[i] - mu);
    if (v > edge) edge = v, edge_prob = 0;
    if (v == edge) edge_prob += law.prob[i];
  }
  const double x = dir * d;
  if (x > edge * (1 + 1e-12)) return INFINITY;
  if (x >= edge) return -std::log(edge_prob);
  // Bracket lambda (in direction dir) with tilted mean above x, then bisect.
  double lo = 0, hi = 1 / std::max(edge, 1e-300);
  for (int i = 0; i < 200 && dir * tilted_centred_mean(law, mu, dir * hi) < x; ++i) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (dir * tilted_centred_mean(law, mu, dir * mid) < x ? lo : hi) = mid;
  }
  const double lambda = dir * lo;
  return std::max(0.0, lambda * d - centred_log_mgf(law, mu, lambda));
}

// P(Y >= j) = exp(-t_j / sigma) for the offsets in increasing order: the law
// of the number of offsets one hash co-bins, Y = #{t : t < R}.
FiniteLaw pooled_law(std::span<const std::int64_t> offsets, double sigma) {
  std::vector<std::int64_t> t(offsets.begin(), offsets.end());
  std::sort(t.begin(), t.end());
  FiniteLaw law;
  double above = 1;  // P(Y >= j)
  for (std::size_t j = 0; j <= t.size(); ++j) {
    const double next = j < t.size() ? cobin_probability(sigma, t[j]) : 0.0;
    law.value.push_back(static_cast<double>(j));
    law.prob.push_back(above - next);
    above = next;
  }
  return law;
}

// The law of (K - m p)^2 for K ~ Binomial(m, p).
FiniteLaw squared_deviation_law(std::int64_t m, double p) {
  const boost::math::binomial_distribution<double> b(static_cast<double>(m), p);
  FiniteLaw law;
  for (std::int64_t k = 0; k <= m; ++k) {
    const double dev = static_cast<double>(k) - static_cast<double>(m) * p;
    law.value.push_back(dev * dev);
    law.prob.push_back(boost::math::pdf(b, static_cast<double>(k)));
    if (law.prob.back() == 0) law.value.pop_back(), law.prob.pop_back();  // underflowed
  }
  return law;
}

double variance(const FiniteLaw& law) {
  const double mu = law.mean();
  double v = 0;
  for (std::size_t i = 0; i < law.value.size(); ++i)
    v += law.prob[i] * (law.value[i] - mu) * (law.value[i] - mu);
  return v;
}

}  // namespace

double chernoff_two_sided_p(const FiniteLaw& law, double sum, double count) {
  const double d = sum / count - law.mean();
  return std::min(1.0, 2 * std::exp(-count * cramer_rate(law, d)));
}

double chernoff_critical_deviation(const FiniteLaw& law, double count, double level, double dir) {
  // The smallest |d| in direction dir with 2 exp(-count I(mu + d)) <= level.
  const double target = std::log(2 / level) / count;
  double edge = 0;
  for (std::size_t i = 0; i < law.value.size(); ++i)
    if (law.prob[i] > 0) edge = std::max(edge, dir * (law.value[i] - law.mean()));
  if (cramer_rate(law, dir * edge) < target) return INFINITY;
  double lo = 0, hi = edge;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (cramer_rate(law, dir * mid) < target ? lo : hi) = mid;
  }
  return hi;
}

PooledScaleTest pooled_scale_test(std::span<const std::int64_t> offsets,
                                  std::span<const std::int64_t> cobinned, std::int64_t hashes,
                                  double sigma) {
  if (offsets.size() != cobinned.size())
    throw std::logic_error("pooled_scale_test: offsets and counts differ in size");
  const FiniteLaw law = pooled_law(offsets, sigma);
  const double mean = law.mean(), var = variance(law);
  double total = 0;
  for (auto k : cobinned) total += static_cast<double>(k);
  const auto h = static_cast<double>(hashes);
  PooledScaleTest r;
  r.ratio = total / (h * mean);
  r.z = var > 0 ? (total - h * mean) / std::sqrt(h * var) : 0.0;
  r.p_value = chernoff_two_sided_p(law, total, h);
  return r;
}

DispersionTest dispersion_test(std::int64_t cobinned, std::int64_t batch_sumsq, std::int64_t hashes,
                               std::int64_t batch, double p) {
  const double m = static_cast<double>(batch);
  const double batches = static_cast<double>(hashes / batch);
  // Applicability is decided by the design (the null p), never by the data:
  // the Chernoff tail holds for any p, but rows with a batch count nearly
  // always 0 (or m) carry little power and would only thin the level.
  if (!(m * std::min(p, 1 - p) >= 2 && batches >= 100)) return DispersionTest{};
  return dispersion_statistic(cobinned, batch_sumsq, hashes, batch, p);
}

DispersionTest dispersion_statistic(std::int64_t cobinned, std::int64_t batch_sumsq,
                                    std::int64_t hashes, std::int64_t batch, double p) {
  DispersionTest r;
  r.applicable = true;
  const double m = static_cast<double>(batch);
  const double batches = static_cast<double>(hashes / batch);
  // sum_b (K_b - m p)^2 = sum_b K_b^2 - 2 m p K + B (m p)^2, a sum of B i.i.d.
  // copies of (K - m p)^2, K ~ Binomial(m, p), under the null.
  const double k = static_cast<double>(cobinned), sumsq = static_cast<double>(batch_sumsq);
  const double observed = sumsq - 2 * m * p * k + batches * m * m * p * p;
  const FiniteLaw law = squared_deviation_law(batch, p);
  const double expected = batches * law.mean();
  r.z = (observed - expected) / std::sqrt(batches * variance(law));
  r.ratio = observed / expected;
  r.p_value = chernoff_two_sided_p(law, observed, batches);
  return r;
}

double detectable_scale_error(std::span<const std::int64_t> offsets, std::int64_t hashes,
                              double sigma, double alpha, double power) {
  const boost::math::normal_distribution<double> nd;
  const double z_power = boost::math::quantile(nd, power);
  const auto h = static_cast<double>(hashes);
  const FiniteLaw null_law = pooled_law(offsets, sigma);
  const double mean0 = null_law.mean();
  // The Chernoff test's critical deviations of the pooled mean, per side.
  const double up = chernoff_critical_deviation(null_law, h, alpha, 1),
               down = chernoff_critical_deviation(null_law, h, alpha, -1);
  // Detected with the given power at scale c when the mean shift clears the
  // critical deviation by z_power standard deviations of the alternative
  // (normal approximation of the alternative's pooled count).
  const auto detected = [&](double c) {
    const FiniteLaw alt = pooled_law(offsets, c * sigma);
    const double shift = alt.mean() - mean0;
    const double crit = shift > 0 ? up : down;
    return h * (std::abs(shift) - crit) >= z_power * std::sqrt(h * variance(alt));
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
