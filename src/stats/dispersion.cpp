#include "stats/dispersion.h"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>

#include "stats/chernoff.h"

namespace poslsh::stats {

namespace {

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

}  // namespace

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

}  // namespace poslsh::stats
