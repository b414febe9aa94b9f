// The parameters of a set of positional hashes (MATH §2): the context length
// n, the ALiBi scale sigma (pitches ~ Gamma(2, sigma)) and the number of
// hashes s. Checked once, in the constructor, in Boost.Math's and Spectra's
// manner: a HashParameters that exists is valid, and the functions that take
// one (the kernel, the error operator, the bounds, the law of b_max) trust it.
// Their raw-argument forms, kept for callers that hold plain numbers, build
// one at their entry, so a direct call still refuses bad values, once.
//
// What does not travel here is checked where it is used: the failure
// probability p is the argument of a bound (as a probability is the argument
// of Boost's quantile), and the 2^32 positions a MaskMean can index are a
// limit of that operator (check_mask_length), not of the parameters.
#pragma once

#include <cstdint>

namespace poslsh {

class HashParameters {
 public:
  // Throws ArgumentError naming n, sigma or s, the first one that is bad in
  // that order, unless n >= 1, sigma is finite and > 0 and s >= 1; the
  // messages are the core's own ("sigma must be a finite number > 0 (got -1)").
  HashParameters(std::int64_t n, double sigma, std::int64_t s);

  std::int64_t n() const noexcept { return n_; }
  double sigma() const noexcept { return sigma_; }
  std::int64_t s() const noexcept { return s_; }

  friend bool operator==(const HashParameters&, const HashParameters&) = default;

 private:
  std::int64_t n_;
  double sigma_;
  std::int64_t s_;
};

}  // namespace poslsh
