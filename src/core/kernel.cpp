#include <poslsh/argument_error.h>
#include <poslsh/kernel.h>
#include <poslsh/rng.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "gamma2.h"

namespace poslsh {

namespace {

// Second differences below this are rounding, not a departure from convexity
// (a learned bias read through exp): they are taken as 0 in the pitch law.
constexpr double kTableTolerance = 1e-12;

// Gamma(alpha, 1) by Marsaglia and Tsang (2000), alpha < 1 through
// G(alpha + 1) U^(1/alpha); normals and uniforms from the hash's own stream.
double gamma_variate(Stream& rng, double alpha) {
  if (alpha < 1) return gamma_variate(rng, alpha + 1) * std::pow(rng.uniform_pos(), 1 / alpha);
  const double d = alpha - 1.0 / 3.0, c = 1 / std::sqrt(9 * d);
  for (;;) {
    const double x = rng.normal();
    const double v = std::pow(1 + c * x, 3);
    if (v <= 0) continue;
    if (std::log(rng.uniform_pos()) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

// Positive beta-stable S with E[exp(-u S)] = exp(-u^beta), by Kanter's (1975)
// representation from U uniform on (0, 1) and E ~ Exp(1); S = 1 at beta = 1.
double positive_stable(Stream& rng, double beta) {
  if (beta == 1) return 1;
  const double u = std::numbers::pi * (rng.uniform_pos() - 0x1p-54);  // in (0, pi)
  const double e = -std::log(rng.uniform_pos());
  const double a = std::sin(beta * u) / std::pow(std::sin(u), 1 / beta);
  return a * std::pow(std::sin((1 - beta) * u) / e, (1 - beta) / beta);
}

// The greatest convex minorant of the points (t, y[t]) (the lower hull,
// evaluated at every t).
std::vector<double> convex_minorant(const std::vector<double>& y) {
  std::vector<std::size_t> hull;
  const auto cross = [&](std::size_t a, std::size_t b, std::size_t c) {
    return (static_cast<double>(b - a)) * (y[c] - y[a]) - (y[b] - y[a]) * static_cast<double>(c - a);
  };
  for (std::size_t t = 0; t < y.size(); ++t) {
    while (hull.size() >= 2 && cross(hull[hull.size() - 2], hull.back(), t) <= 0) hull.pop_back();
    hull.push_back(t);
  }
  std::vector<double> h(y.size());
  for (std::size_t j = 0; j + 1 < hull.size(); ++j)
    for (std::size_t t = hull[j]; t <= hull[j + 1]; ++t)
      h[t] = y[hull[j]] + (y[hull[j + 1]] - y[hull[j]]) * static_cast<double>(t - hull[j]) /
                              static_cast<double>(hull[j + 1] - hull[j]);
  if (hull.size() == 1) h[0] = y[0];
  return h;
}

// k(d - 1) - 2 k(d) + k(d + 1) of a table extended by its last value.
double second_difference(const std::vector<double>& k, std::size_t d) {
  const double next = d + 1 < k.size() ? k[d + 1] : k.back();
  return k[d - 1] - 2 * k[d] + next;
}

void check_table_values(const std::vector<double>& k) {
  if (k.empty()) throw ArgumentError("kernel", "must hold k(0), k(1), ... (at least one value)", "");
  for (std::size_t t = 0; t < k.size(); ++t)
    if (!(k[t] >= 0 && k[t] <= 1))
      throw ArgumentError("kernel", "values must be finite numbers in [0, 1]",
                          "k(" + std::to_string(t) + ") = " + format_value(k[t]));
  if (std::abs(k[0] - 1) > kTableTolerance)
    throw ArgumentError("kernel", "must have k(0) = 1", format_value(k[0]));
}

}  // namespace

FrameworkDistance framework_distance(std::span<const double> values) {
  const std::vector<double> k(values.begin(), values.end());
  FrameworkDistance out;
  for (std::size_t t = 1; t < k.size() && out.first_offending_t < 0; ++t)
    if (k[t] > k[t - 1] + kTableTolerance || second_difference(k, t) < -kTableTolerance)
      out.first_offending_t = static_cast<std::int64_t>(t);
  std::vector<double> running(k);
  for (std::size_t t = 1; t < running.size(); ++t) running[t] = std::min(running[t], running[t - 1]);
  const std::vector<double> h = convex_minorant(running);
  for (std::size_t t = 0; t < k.size(); ++t) out.distance = std::max(out.distance, (k[t] - h[t]) / 2);
  return out;
}

Kernel Kernel::laplace(double sigma) {
  check::positive_finite("sigma", sigma);
  return Kernel(KernelFamily::kLaplace, sigma, 0);
}

Kernel Kernel::triangle(double width) {
  check::positive_finite("width", width);
  return Kernel(KernelFamily::kTriangle, width, 0);
}

Kernel Kernel::power_law(double sigma, double alpha) {
  check::positive_finite("sigma", sigma);
  check::positive_finite("alpha", alpha);
  return Kernel(KernelFamily::kPowerLaw, sigma, alpha);
}

Kernel Kernel::stretched_exponential(double sigma, double beta) {
  check::positive_finite("sigma", sigma);
  if (!(beta > 0 && beta <= 1))
    throw ArgumentError("beta", "must be a number in (0, 1] (a convex kernel)", format_value(beta));
  return Kernel(KernelFamily::kStretchedExponential, sigma, beta);
}

Kernel Kernel::tabulated(std::vector<double> values) {
  check_table_values(values);
  const FrameworkDistance d = framework_distance(values);
  if (d.first_offending_t >= 0)
    throw ArgumentError("kernel",
                        "must be non-increasing and convex, the kernels random grids represent; t = " +
                            std::to_string(d.first_offending_t) +
                            " breaks it (distance to the nearest such kernel " +
                            format_value(d.distance) + ")",
                        "");
  Kernel kernel(KernelFamily::kTabulated, 1, 0);
  kernel.table_ = std::move(values);
  kernel.table_[0] = 1;
  const auto& k = kernel.table_;
  double total = 0;
  for (std::size_t d = 1; d < k.size(); ++d) {
    const double p = static_cast<double>(d) * std::max(0.0, second_difference(k, d));
    kernel.pitch_probabilities_.push_back(p);
    total += p;
    kernel.cumulative_.push_back(total);
  }
  kernel.pitch_probabilities_.push_back(k.back());  // the atom at an infinite pitch
  kernel.cumulative_.push_back(total + k.back());
  return kernel;
}

Kernel Kernel::from_bias(std::span<const double> bias) {
  if (bias.empty()) throw ArgumentError("bias", "must hold b(0), b(1), ... (at least one value)", "");
  std::vector<double> k(bias.size());
  for (std::size_t t = 0; t < bias.size(); ++t) {
    if (!std::isfinite(bias[t]))
      throw ArgumentError("bias", "values must be finite", "b(" + std::to_string(t) + ") = " +
                                                               format_value(bias[t]));
    k[t] = std::exp(bias[t] - bias[0]);
  }
  return tabulated(std::move(k));
}

std::string Kernel::spec() const {
  switch (family_) {
    case KernelFamily::kPowerLaw:
    case KernelFamily::kStretchedExponential:
      return family_name() + ":" + format_value(shape_);
    case KernelFamily::kTabulated: {
      std::string text = "values:";
      for (std::size_t t = 0; t < table_.size(); ++t) {
        if (t > 0) text += ';';
        text += format_value(table_[t]);
      }
      return text;
    }
    default:
      return family_name();
  }
}

Kernel Kernel::with_pitch_scaled(double c) const {
  Kernel scaled = *this;
  if (family_ == KernelFamily::kTabulated)
    scaled.table_pitch_scale_ *= c;
  else
    scaled.scale_ *= c;
  return scaled;
}

std::string Kernel::family_name() const {
  switch (family_) {
    case KernelFamily::kLaplace:
      return "laplace";
    case KernelFamily::kTriangle:
      return "triangle";
    case KernelFamily::kPowerLaw:
      return "power-law";
    case KernelFamily::kStretchedExponential:
      return "stretched-exponential";
    case KernelFamily::kTabulated:
      return "tabulated";
  }
  return "?";
}

double Kernel::operator()(double t) const {
  switch (family_) {
    case KernelFamily::kLaplace:
      return std::exp(-t / scale_);
    case KernelFamily::kTriangle:
      return std::max(0.0, 1 - t / scale_);
    case KernelFamily::kPowerLaw:
      return std::pow(1 + t / scale_, -shape_);
    case KernelFamily::kStretchedExponential:
      return std::exp(-std::pow(t / scale_, shape_));
    case KernelFamily::kTabulated: {
      const double u = t / table_pitch_scale_;
      const auto i = static_cast<std::size_t>(std::min(std::floor(u), static_cast<double>(table_.size() - 1)));
      return table_[i];
    }
  }
  return 0;
}

PositionalHash Kernel::draw(std::uint64_t seed, std::uint64_t trial, std::uint64_t k) const {
  if (family_ == KernelFamily::kLaplace) return draw_hash(seed, trial, k, scale_);
  Stream rng(seed, trial, k, StreamPurpose::kHash);
  const double u1 = rng.uniform_pos(), u2 = rng.uniform_pos(), u3 = rng.uniform();
  if (family_ == KernelFamily::kTabulated) {
    const auto d = static_cast<std::size_t>(
        std::upper_bound(cumulative_.begin(), cumulative_.end(), u3 * cumulative_.back()) -
        cumulative_.begin());
    if (d + 1 >= cumulative_.size()) return {kInfinitePitch, 0};  // the atom: one block
    const double pitch = static_cast<double>(d + 1);
    return {pitch, std::floor(rng.uniform() * pitch)};
  }
  double pitch = scale_;  // the triangle's one pitch
  if (family_ != KernelFamily::kTriangle) {
    // A slope lambda from the mixture, then pitch ~ Gamma(2, 1 / lambda).
    const double mixed = family_ == KernelFamily::kPowerLaw ? gamma_variate(rng, shape_)
                                                             : positive_stable(rng, shape_);
    pitch = std::min(scale_ * detail::gamma2_from_uniforms(u1, u2) / mixed, kInfinitePitch);
  }
  return {pitch, pitch * u3};
}

std::vector<PositionalHash> draw_kernel_hashes(const Kernel& kernel, std::uint64_t seed,
                                               std::uint64_t trial, std::int64_t s) {
  check::hash_count("s", s);
  std::vector<PositionalHash> hashes;
  hashes.reserve(static_cast<std::size_t>(s));
  for (std::int64_t k = 0; k < s; ++k) hashes.push_back(kernel.draw(seed, trial, static_cast<std::uint64_t>(k)));
  return hashes;
}

}  // namespace poslsh
