// The law of the largest block b_max of s hashes over [0, n) (MATH §3), in
// Boost.Math style (the goodness of fit of a sample to it is the verifier's:
// experiments/blocksize/blocksize_fit.h).
//
// The discrete law. A hash with pitch delta = m + f (m = floor(delta), f > 0)
// has blocks of m or m + 1 = ceil(delta) positions; the block of bin k has
// m + 1 positions when its alignment x_k < f, and alignments rotate by f from
// bin to bin, so among any ceil(1/f) + 1 consecutive bins one has ceil(delta)
// positions. When n >> delta the hash's largest block is therefore ceil(delta),
// b_max = ceil(max_k delta_k), and for integer b
//     P(b_max <= b) = P(max_k delta_k <= b) = F(b)^s,
// F the Gamma(2, sigma) CDF (clipped: P(b_max <= b) = 1 for b >= n).
//
// When it fails. The hash holding the largest pitch misses ceil(delta) only if
// none of its N ~ n / delta full bins is a landing, i.e. x_0 >= N f; with x_0
// uniform that has probability max(0, 1 - N f), which integrates over f near 0
// to 1 / (2N) = delta / (2n) (the fractional part of delta has density ~1 near
// 0). So a trial deviates from the law with probability about
//     law_deviation_rate(n, sigma, s) = E[max_k delta_k] / (2 n),
// each deviation moving one trial down by one unit. The law is applied to T
// trials when T · rate <= 1/2: then the expected number of deviating trials is
// at most 1/2, which moves the chi-square statistic by far less than its noise
// (tests check the rate by simulation).
#pragma once

#include <poslsh/bounds.h>
#include <poslsh/hash_parameters.h>

#include <cstdint>
#include <span>
#include <vector>

namespace poslsh {

class BlockSizeLaw {
 public:
  // Throws ArgumentError unless n >= 1, sigma finite and > 0, s >= 1.
  BlockSizeLaw(std::int64_t n, double sigma, std::int64_t s);
  // Checks nothing: HashParameters is valid.
  explicit BlockSizeLaw(const HashParameters& hash);
  std::int64_t n() const { return hash_.n(); }
  double sigma() const { return hash_.sigma(); }
  std::int64_t s() const { return hash_.s(); }
  const HashParameters& parameters() const { return hash_; }

 private:
  HashParameters hash_;
};

// P(b_max <= b): 0 for b < 1, F(b)^s for 1 <= b < n, 1 for b >= n.
double cdf(const BlockSizeLaw& law, std::int64_t b);
// P(b_max > b), accurate where it is tiny: -expm1(s log1p(-P(delta > b))).
double survival(const BlockSizeLaw& law, std::int64_t b);
double pmf(const BlockSizeLaw& law, std::int64_t b);
// Smallest integer b with cdf(b) >= p; p in (0, 1].
std::int64_t quantile(const BlockSizeLaw& law, double p);
std::int64_t median(const BlockSizeLaw& law);
// E[b_max] = sum_{b >= 0} P(b_max > b) under the law.
double mean(const BlockSizeLaw& law);

// E[max_k delta_k] = ∫_0^∞ (1 - F(t)^s) dt for s i.i.d. Gamma(2, sigma)
// pitches, by adaptive Gauss–Kronrod on [0, sigma x_hi] plus the closed-form
// union-bound tail beyond (x_hi solves s (1 + x) e^-x = 1e-20). A finite range
// is used on purpose: exp_sinh on [0, ∞) gives no signal when it goes wrong.
struct QuadratureResult {
  double value = 0;
  double error_estimate = 0;
  bool converged = false;  // error_estimate <= 1e-10 · value
};
QuadratureResult expected_max_pitch(double sigma, std::int64_t s);

// The high-probability bound b_max <= min(n, floor(sigma x_p) + 1) is
// b_max_bound() in bounds.h, with the other theorem bounds.

// Probability that one trial's b_max differs from ceil(max_k delta_k) (see above).
double law_deviation_rate(const HashParameters& hash);
double law_deviation_rate(std::int64_t n, double sigma, std::int64_t s);
// Whether the law may be tested on `trials` trials: trials · rate <= 1/2.
// Throws ArgumentError (trials) unless trials >= 1.
bool law_applies(const HashParameters& hash, std::int64_t trials);
bool law_applies(std::int64_t n, double sigma, std::int64_t s, std::int64_t trials);

}  // namespace poslsh
