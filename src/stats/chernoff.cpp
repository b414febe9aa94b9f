#include "stats/chernoff.h"

#include <algorithm>
#include <cmath>

namespace poslsh::stats {

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

}  // namespace

double variance(const FiniteLaw& law) {
  const double mu = law.mean();
  double v = 0;
  for (std::size_t i = 0; i < law.value.size(); ++i)
    v += law.prob[i] * (law.value[i] - mu) * (law.value[i] - mu);
  return v;
}

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

namespace {

double log_mgf(const FiniteLaw& law, double theta) {
  double top = -INFINITY;
  for (std::size_t i = 0; i < law.value.size(); ++i)
    top = std::max(top, std::log(law.prob[i]) + theta * law.value[i]);
  double sum = 0;
  for (std::size_t i = 0; i < law.value.size(); ++i)
    sum += std::exp(std::log(law.prob[i]) + theta * law.value[i] - top);
  return top + std::log(sum);
}

}  // namespace

double chernoff_mean_tail(const FiniteLaw& law, double m, double count, double theta_lo,
                          double theta_hi) {
  const auto rate = [&](double theta) { return theta * m - log_mgf(law, theta); };
  // Golden-section search: the rate is concave in theta.
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = theta_lo, b = theta_hi, x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = rate(x1), f2 = rate(x2);
  for (int it = 0; it < 100; ++it) {
    if (f1 < f2) {
      a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = rate(x2);
    } else {
      b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = rate(x1);
    }
  }
  const double best = std::max({f1, f2, rate(theta_lo), rate(theta_hi), 0.0});
  return std::exp(-count * best);
}

}  // namespace poslsh::stats
