// The dispersion test of batch counts against the binomial law.
#pragma once

#include <cstdint>

namespace poslsh::stats {

// The dispersion test of one offset: S = sum_b (K_b - m p)^2 over the B batches
// of m hashes, p the null rate: under the null a sum of B i.i.d. copies of
// (K - m p)^2, K ~ Binomial(m, p), so its p-value is the Chernoff bound with
// that exact law. Dependence between the hashes of a batch moves S off B m p q
// (repeated hashes inflate it, antithetic ones deflate it); a wrong mean also
// inflates it, by B m^2 (p' - p)^2, which the mean and scale tests see first.
// Applicable only when m min(p, 1 - p) >= 2 and B >= 100 (a design rule for
// power, not for validity: the bound holds for any p and B).
struct DispersionTest {
  bool applicable = false;
  double z = 0, p_value = 1, ratio = 1;  // ratio: observed / expected sum of squares
};
DispersionTest dispersion_test(std::int64_t cobinned, std::int64_t batch_sumsq, std::int64_t hashes,
                               std::int64_t batch, double p);
// The same statistic without the applicability rule (any batch >= 1, any
// number of whole batches >= 1): for callers that choose their own batches.
DispersionTest dispersion_statistic(std::int64_t cobinned, std::int64_t batch_sumsq,
                                    std::int64_t hashes, std::int64_t batch, double p);

}  // namespace poslsh::stats
