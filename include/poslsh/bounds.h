// High-probability bounds on the estimator's errors and largest block
// (MATH §3-§5), as functions of the hash parameters (n, sigma, s) and p, the
// failure probability. Each holds with probability at least 1 - p over the s
// hashes. The forms taking HashParameters trust them and check p alone; the
// raw-argument forms check (n, sigma, s) once, by building HashParameters.
#pragma once

#include <poslsh/alibi_kernel.h>
#include <poslsh/hash_parameters.h>

#include <cstdint>

namespace poslsh {

// The terms of the spectral bound, kept for reports and tests:
//   ||E||_2 <= sqrt(2 v beta / s) + 2 R beta / (3 s) + b_T
struct SpectralBoundTerms {
  double v;          // 6 sigma^2 + 4 sigma + 1 = E[(delta + 1)^2]
  double beta;       // ln(4 n / p)
  double x;          // solves s (1 + x) e^-x = p / 2
  double threshold;  // T = sigma x: all pitches are <= T w.p. >= 1 - p/2
  double range;      // R, the bound on each centred summand
  double bias;       // b_T = E[(delta + 1) 1(delta > T)]
  double total;
};

// MATH §4. Symmetric form: R = max(floor(T) + 1, coth(1/(2 sigma))).
// Causal form (not in MATH §4; same derivation): the summands
// T ⊙ (M'_k - E M'_k) are no longer differences of PSD matrices, so
// R = floor(T) + 1 + coth(1/(2 sigma)) (norms of entrywise non-negative matrices
// only shrink under ⊙ T); the variance proxy v still bounds the row sums of
// E[(T⊙M')(T⊙M')^T] and E[(T⊙M')^T(T⊙M')]; the rectangular matrix Bernstein
// inequality has the same dimension factor 2n; ||T ⊙ B_T|| <= ||B_T|| <= b_T.
// Throws ArgumentError (p) unless 0 < p < 1.
SpectralBoundTerms spectral_bound_terms(const HashParameters& hash, double p,
                                        Form form = Form::kSymmetric);
double spectral_bound(const HashParameters& hash, double p, Form form = Form::kSymmetric);
// The same from raw values: ArgumentError as validate_bound_parameters.
SpectralBoundTerms spectral_bound_terms(std::int64_t n, double sigma, std::int64_t s, double p,
                                        Form form = Form::kSymmetric);
double spectral_bound(std::int64_t n, double sigma, std::int64_t s, double p,
                      Form form = Form::kSymmetric);

// MATH §5 (Hoeffding + union over the n(n-1)/2 off-diagonal pairs; the same
// pairs in the causal form): sqrt(ln(n (n-1) / p) / (2 s)); 0 when n = 1
// (no off-diagonal entry). Independent of sigma.
double max_bound(const HashParameters& hash, double p);
double max_bound(std::int64_t n, std::int64_t s, double p);  // checks n, s and p

// MATH §3: b_max <= min(n, floor(sigma x_p) + 1), s (1 + x_p) e^-x_p = p.
std::int64_t b_max_bound(const HashParameters& hash, double p);
std::int64_t b_max_bound(std::int64_t n, double sigma, std::int64_t s, double p);

// Throws ArgumentError naming the parameter unless n >= 1, sigma is
// finite and > 0, s >= 1 and 0 < p < 1 (HashParameters, then p).
void validate_bound_parameters(std::int64_t n, double sigma, std::int64_t s, double p);

}  // namespace poslsh
