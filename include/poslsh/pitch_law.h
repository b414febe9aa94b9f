// The law of the hash pitch, delta ~ Gamma(shape 2, scale sigma) (MATH §2),
// in Boost.Math style: a tiny object holding the parameter and free functions.
// Closed form with x = t / sigma: P(delta > t) = (1 + x) e^-x.
#pragma once

#include <poslsh/hash_parameters.h>

#include <cstdint>

namespace poslsh {

class PitchLaw {
 public:
  // Throws ArgumentError unless sigma is finite and > 0.
  explicit PitchLaw(double sigma);
  // The law of the pitches of hashes with these parameters (their sigma).
  // Checks nothing: HashParameters is valid.
  explicit PitchLaw(const HashParameters& hash);
  double sigma() const { return sigma_; }

 private:
  double sigma_;
};

double cdf(const PitchLaw& law, double t);   // P(delta <= t)
double tail(const PitchLaw& law, double t);  // P(delta > t), accurate in the far tail
double pdf(const PitchLaw& law, double t);

// The x >= 0 solving s (1 + x) e^-x = p (union bound over s pitches: with
// probability >= 1 - p every pitch is <= sigma x). Returns 0 when s <= p.
// Throws ArgumentError unless s >= 1 and 0 < p < 1.
double union_tail_threshold(double s, double p);

}  // namespace poslsh
