// Relative-position kernels that random grids represent (docs/MATH.md §10):
// k(t), t = |i - j| >= 0, with k(0) = 1, non-increasing and convex, is the
// probability that a grid with the kernel's pitch law and a uniform shift puts
// i and j in one block. ALiBi's exp(-t/sigma) (pitch ~ Gamma(2, sigma)) is one
// case; a hard window, a Gaussian or a bias that rises again is none (MATH §10,
// the converse).
//
// A Kernel is checked once, when it is made (as HashParameters is): the
// factories throw ArgumentError naming the parameter, and a tabulated kernel
// that is not non-increasing and convex is refused naming the first t that
// breaks it and its distance to the framework. A Kernel that exists is valid.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "poslsh/positional_hash.h"

namespace poslsh {

enum class KernelFamily { kLaplace, kTriangle, kPowerLaw, kStretchedExponential, kTabulated };

class Kernel {
 public:
  // exp(-t / sigma): ALiBi; pitch ~ Gamma(2, sigma), drawn by draw_hash.
  static Kernel laplace(double sigma);
  // (1 - t / width)+: one pitch, width (the fixed-blocks baseline is one draw).
  static Kernel triangle(double width);
  // (1 + t / sigma)^-alpha (KERPLE's log variant): a Gamma(alpha, rate sigma)
  // mixture of ALiBi slopes lambda, pitch ~ Gamma(2, 1 / lambda).
  static Kernel power_law(double sigma, double alpha);
  // exp(-(t / sigma)^beta), 0 < beta <= 1 (KERPLE's power variant with
  // exponent <= 1): slopes lambda = S / sigma, S positive beta-stable.
  static Kernel stretched_exponential(double sigma, double beta);
  // k(0..T) as given, k(t) = k(T) beyond (an atom of that mass at an infinite
  // pitch: one block). Needs k(0) = 1, every value finite in [0, 1],
  // non-increasing and convex (second differences >= -1e-12).
  static Kernel tabulated(std::vector<double> values);
  // A learned additive bias b(0..T), read as k = exp(b - b(0)).
  static Kernel from_bias(std::span<const double> bias);

  KernelFamily family() const { return family_; }
  // The kernel as a table's `kernel` column and --kernel read it back:
  // "power-law:1.5" (with the row's sigma), a table as "values:1;0.5;...".
  std::string spec() const;
  // The kernel of pitches scaled by c > 0: k(t / c) (a scale error of the
  // sampler; for the parametric families, their scale times c).
  Kernel with_pitch_scaled(double c) const;
  // "laplace", "triangle", "power-law", "stretched-exponential", "tabulated".
  std::string family_name() const;
  // k(t) (a table: k(floor(t)), its last value beyond).
  double operator()(double t) const;

  // Hash k of (seed, trial) under the kernel's pitch law: for laplace exactly
  // draw_hash(seed, trial, k, sigma); a tabulated kernel's pitch is an
  // integer d with P(d) = d (k(d-1) - 2 k(d) + k(d+1)) and its shift an
  // integer uniform on {0, ..., d-1} (the infinite pitch: one block).
  PositionalHash draw(std::uint64_t seed, std::uint64_t trial, std::uint64_t k) const;

  // The tabulated kernel's law of integer pitches: P(d) for d = 1 .. T (index
  // d - 1), the atom at an infinite pitch last. Empty for the other families.
  const std::vector<double>& pitch_probabilities() const { return pitch_probabilities_; }

  double scale() const { return scale_; }   // sigma or width (1 for tables)
  double shape() const { return shape_; }   // alpha or beta (0 where none)
  const std::vector<double>& table() const { return table_; }

 private:
  Kernel(KernelFamily family, double scale, double shape) : family_(family), scale_(scale), shape_(shape) {}
  KernelFamily family_;
  double scale_ = 1, shape_ = 0, table_pitch_scale_ = 1;
  std::vector<double> table_, pitch_probabilities_, cumulative_;
};

// Hashes k = 0 .. s-1 of (seed, trial) under `kernel` (Kernel::draw); for a
// laplace kernel exactly draw_hashes(seed, trial, s, sigma). Throws
// ArgumentError naming s unless 1 <= s <= kMaxHashes.
std::vector<PositionalHash> draw_kernel_hashes(const Kernel& kernel, std::uint64_t seed,
                                               std::uint64_t trial, std::int64_t s);

// A table's departure from the framework: the first t at which it rises or
// is not convex (-1: none), and its sup-norm distance to the nearest
// non-increasing convex sequence, max_t (k(t) - H(t)) / 2 with H the greatest
// convex minorant of k's running minimum (0 for a kernel of the framework).
struct FrameworkDistance {
  std::int64_t first_offending_t = -1;
  double distance = 0;
};
FrameworkDistance framework_distance(std::span<const double> values);

// The pitch at which a hash has one block whatever n (a tabulated kernel's
// atom at infinity): every position is in block 0.
inline constexpr double kInfinitePitch = 0x1p62;

}  // namespace poslsh
