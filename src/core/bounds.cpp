#include <poslsh/argument_error.h>
#include <poslsh/bounds.h>
#include <poslsh/pitch_law.h>
#include <poslsh/positional_hash.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "union_tail.h"

namespace poslsh {

void validate_bound_parameters(std::int64_t n, double sigma, std::int64_t s, double p) {
  const HashParameters hash(n, sigma, s);
  check::open_unit("p", p);  // the failure probability
}

SpectralBoundTerms spectral_bound_terms(const HashParameters& hash, double p, Form form) {
  check::open_unit("p", p);
  const std::int64_t n = hash.n();
  const double sigma = hash.sigma();
  SpectralBoundTerms b{};
  const double ds = static_cast<double>(hash.s());
  b.v = 6 * sigma * sigma + 4 * sigma + 1;
  b.beta = std::log(4.0 * static_cast<double>(n) / p);
  b.x = detail::union_tail_root(ds, p / 2);
  b.threshold = sigma * b.x;
  const double block = std::floor(b.threshold) + 1;
  const double kernel_norm = alibi_norm_limit(sigma);
  b.range = form == Form::kSymmetric ? std::max(block, kernel_norm) : block + kernel_norm;
  const double tail = std::exp(-b.x);
  b.bias = sigma * (b.x * b.x + 2 * b.x + 2) * tail + (1 + b.x) * tail;
  b.total = std::sqrt(2 * b.v * b.beta / ds) + 2 * b.range * b.beta / (3 * ds) + b.bias;
  return b;
}

SpectralBoundTerms spectral_bound_terms(std::int64_t n, double sigma, std::int64_t s, double p,
                                        Form form) {
  return spectral_bound_terms(HashParameters(n, sigma, s), p, form);
}

double spectral_bound(const HashParameters& hash, double p, Form form) {
  return spectral_bound_terms(hash, p, form).total;
}

double spectral_bound(std::int64_t n, double sigma, std::int64_t s, double p, Form form) {
  return spectral_bound_terms(HashParameters(n, sigma, s), p, form).total;
}

double max_bound(const HashParameters& hash, double p) {
  check::open_unit("p", p);
  if (hash.n() == 1) return 0.0;
  const double dn = static_cast<double>(hash.n());
  return std::sqrt(std::log(dn * (dn - 1) / p) / (2.0 * static_cast<double>(hash.s())));
}

// sigma plays no part: any valid one stands in for it.
double max_bound(std::int64_t n, std::int64_t s, double p) {
  return max_bound(HashParameters(n, 1.0, s), p);
}

std::int64_t b_max_bound(const HashParameters& hash, double p) {
  check::open_unit("p", p);
  const double x = detail::union_tail_root(static_cast<double>(hash.s()), p);
  const double b = std::floor(hash.sigma() * x) + 1;
  return b >= static_cast<double>(hash.n()) ? hash.n() : static_cast<std::int64_t>(b);
}

std::int64_t b_max_bound(std::int64_t n, double sigma, std::int64_t s, double p) {
  return b_max_bound(HashParameters(n, sigma, s), p);
}

}  // namespace poslsh
