#include <poslsh/argument_error.h>
#include <poslsh/bounds.h>
#include <poslsh/pitch_law.h>
#include <poslsh/positional_hash.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace poslsh {

void validate_bound_parameters(std::int64_t n, double sigma, std::int64_t s, double p) {
  validate_hash_parameters(n, sigma, s);
  check::open_unit("p", p);  // the failure probability
}

SpectralBoundTerms spectral_bound_terms(std::int64_t n, double sigma, std::int64_t s, double p,
                                        Form form) {
  validate_bound_parameters(n, sigma, s, p);
  SpectralBoundTerms b{};
  const double ds = static_cast<double>(s);
  b.v = 6 * sigma * sigma + 4 * sigma + 1;
  b.beta = std::log(4.0 * static_cast<double>(n) / p);
  b.x = union_tail_threshold(ds, p / 2);
  b.threshold = sigma * b.x;
  const double block = std::floor(b.threshold) + 1;
  const double kernel_norm = alibi_norm_limit(sigma);
  b.range = form == Form::kSymmetric ? std::max(block, kernel_norm) : block + kernel_norm;
  const double tail = std::exp(-b.x);
  b.bias = sigma * (b.x * b.x + 2 * b.x + 2) * tail + (1 + b.x) * tail;
  b.total = std::sqrt(2 * b.v * b.beta / ds) + 2 * b.range * b.beta / (3 * ds) + b.bias;
  return b;
}

double spectral_bound(std::int64_t n, double sigma, std::int64_t s, double p, Form form) {
  return spectral_bound_terms(n, sigma, s, p, form).total;
}

double max_bound(std::int64_t n, std::int64_t s, double p) {
  validate_bound_parameters(n, 1.0, s, p);
  if (n == 1) return 0.0;
  const double dn = static_cast<double>(n);
  return std::sqrt(std::log(dn * (dn - 1) / p) / (2.0 * static_cast<double>(s)));
}

std::int64_t b_max_bound(std::int64_t n, double sigma, std::int64_t s, double p) {
  validate_bound_parameters(n, sigma, s, p);
  const double x = union_tail_threshold(static_cast<double>(s), p);
  const double b = std::floor(sigma * x) + 1;
  return b >= static_cast<double>(n) ? n : static_cast<std::int64_t>(b);
}

}  // namespace poslsh
