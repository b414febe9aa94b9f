// Kernels beyond ALiBi (poslsh/kernel.h, docs/MATH.md §10): each family's
// grids co-bin positions t apart with probability k(t). Oracles: for a table
// the exact sum over its integer pitch law (sum_d P(d) (1 - t/d)+ plus the
// atom), which must equal k(t) to rounding; for the analytic families k(t)
// in closed form against counts of drawn hashes. Negative controls: ALiBi's
// law under a power-law kernel, alpha and beta off by 5%, must be caught.
//
// Statistical lines: N hashes at fixed seeds; a count is accepted when it
// lies within 6 binomial standard deviations of N k(t), a two-sided
// false-alarm probability of 2e-9 per offset (normal approximation, N k(t)
// (1 - k(t)) >= 900 at every offset tested), under 1e-7 over this file.
#include <gtest/gtest.h>
#include <poslsh/argument_error.h>
#include <poslsh/kernel.h>

#include <cmath>
#include <string>
#include <vector>

namespace poslsh {
namespace {

constexpr std::int64_t kHashes = 100000;
const std::vector<std::int64_t> kOffsets = {1, 2, 4, 8, 16, 32};

// Co-binning frequency of positions a and a + t (a = 1000: away from 0,
// where a grid's first block starts).
double cobinned(const std::vector<PositionalHash>& hashes, std::int64_t t) {
  std::int64_t same = 0;
  for (const auto& h : hashes) same += h.bin(1000) == h.bin(1000 + t);
  return static_cast<double>(same) / static_cast<double>(hashes.size());
}

// The largest |frequency - k(t)| in binomial standard deviations over kOffsets.
double worst_deviation(const std::vector<PositionalHash>& hashes, const Kernel& kernel) {
  double worst = 0;
  for (const std::int64_t t : kOffsets) {
    const double k = kernel(static_cast<double>(t));
    const double sd = std::sqrt(k * (1 - k) / static_cast<double>(hashes.size()));
    const double gap = std::abs(cobinned(hashes, t) - k);
    // k(t) = 0 or 1 (a triangle past its width): the count must be exact.
    worst = std::max(worst, sd > 0 ? gap / sd : (gap == 0 ? 0.0 : INFINITY));
  }
  return worst;
}

double worst_for(const Kernel& drawn, const Kernel& expected, std::uint64_t seed) {
  return worst_deviation(draw_kernel_hashes(drawn, seed, 0, kHashes), expected);
}

TEST(Kernel, LaplaceDrawsAreDrawHashBitForBit) {
  const Kernel k = Kernel::laplace(16);
  const auto a = draw_kernel_hashes(k, 7, 3, 50);
  const auto b = draw_hashes(7, 3, 50, 16.0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].pitch, b[i].pitch);
    EXPECT_EQ(a[i].shift, b[i].shift);
  }
}

TEST(Kernel, EveryFamilyCobinsAtItsKernel) {
  for (const Kernel& k : {Kernel::laplace(8), Kernel::triangle(20), Kernel::power_law(8, 1.5),
                          Kernel::power_law(4, 0.5), Kernel::stretched_exponential(8, 0.5),
                          Kernel::stretched_exponential(8, 1.0)})
    EXPECT_LT(worst_for(k, k, 11), 6.0) << k.family_name() << " " << k.scale() << " " << k.shape();
}

TEST(Kernel, WrongPitchLawsAreCaught) {
  // ALiBi's law where a power law is expected; the shape 5% off.
  EXPECT_GT(worst_for(Kernel::laplace(8), Kernel::power_law(8, 1.5), 11), 6.0);
  EXPECT_GT(worst_for(Kernel::power_law(8, 1.575), Kernel::power_law(8, 1.5), 11), 6.0);
  EXPECT_GT(worst_for(Kernel::stretched_exponential(8, 0.525), Kernel::stretched_exponential(8, 0.5), 11),
            6.0);
}

// The exact co-binning probability of a table's pitch law at distance t.
double table_cobinning(const Kernel& k, std::int64_t t) {
  const auto& p = k.pitch_probabilities();
  double sum = p.back();  // the atom: one block
  for (std::size_t d = 1; d < p.size(); ++d)
    sum += p[d - 1] * std::max(0.0, 1 - static_cast<double>(t) / static_cast<double>(d));
  return sum;
}

TEST(Kernel, ATableIsItsPitchLawsExpectationExactly) {
  std::vector<double> power(400), bias(60);
  for (std::size_t t = 0; t < power.size(); ++t) power[t] = std::pow(1 + t / 4.0, -1.5);
  for (std::size_t t = 0; t < bias.size(); ++t) bias[t] = -0.3 * t + 0.002 * t * t - 1.0;  // convex
  for (const Kernel& k : {Kernel::tabulated(power), Kernel::from_bias(bias)}) {
    double total = 0;
    for (double p : k.pitch_probabilities()) total += p;
    EXPECT_NEAR(total, 1.0, 1e-12);
    for (std::int64_t t = 0; t < 450; ++t)
      EXPECT_NEAR(table_cobinning(k, t), k(static_cast<double>(t)), 1e-12) << t;
  }
  // Drawn: integer pitches and shifts, counts at k(t).
  const Kernel k = Kernel::tabulated(power);
  const auto hashes = draw_kernel_hashes(k, 5, 0, kHashes);
  for (const auto& h : hashes) EXPECT_EQ(h.shift, std::floor(h.shift));
  EXPECT_LT(worst_deviation(hashes, k), 6.0);
}

TEST(Kernel, AConstantTailIsAnAtomAtAnInfinitePitch) {
  const Kernel k = Kernel::tabulated({1.0, 0.7, 0.5, 0.4, 0.4});
  EXPECT_DOUBLE_EQ(k.pitch_probabilities().back(), 0.4);
  EXPECT_DOUBLE_EQ(k(1e9), 0.4);
  const auto hashes = draw_kernel_hashes(k, 1, 0, 20000);
  std::int64_t one_block = 0;
  for (const auto& h : hashes) one_block += h.bin(0) == h.bin(std::int64_t{1} << 40);
  EXPECT_NEAR(static_cast<double>(one_block) / 20000, 0.4, 6 * std::sqrt(0.24 / 20000));
}

std::string refusal(const std::vector<double>& table) {
  try {
    Kernel::tabulated(table);
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.argument(), "kernel");
    return e.what();
  }
  return "";
}

TEST(Kernel, TablesOutsideTheFrameworkAreRefusedAtTheirFirstOffendingT) {
  // A hard window: flat, then a drop (not convex at t = 2); distance 1/3.
  EXPECT_NE(refusal({1, 1, 1, 0, 0}).find("t = 2 breaks it (distance to the nearest such kernel "
                                          "0.3333333333333333)"),
            std::string::npos);
  // A T5-style step table: not convex where the step falls.
  EXPECT_NE(refusal({1, 0.8, 0.8, 0.8, 0.5, 0.5}).find("t = 3 breaks it"), std::string::npos);
  // A bias that rises again.
  EXPECT_NE(refusal({1, 0.5, 0.7}).find("t = 2 breaks it"), std::string::npos);
  EXPECT_NE(refusal({0.9, 0.5}).find("k(0) = 1"), std::string::npos);
  EXPECT_NE(refusal({1, NAN}).find("k(1) = nan"), std::string::npos);
  EXPECT_EQ(framework_distance(std::vector<double>{1, 0.5, 0.25, 0.125}).first_offending_t, -1);
  EXPECT_EQ(framework_distance(std::vector<double>{1, 0.5, 0.25, 0.125}).distance, 0);
}

TEST(Kernel, ParametersAreCheckedOnceAndNamed) {
  EXPECT_THROW(Kernel::laplace(-1), ArgumentError);
  EXPECT_THROW(Kernel::power_law(8, 0), ArgumentError);
  EXPECT_THROW(Kernel::stretched_exponential(8, 1.5), ArgumentError);  // not convex
  EXPECT_THROW(Kernel::triangle(NAN), ArgumentError);
  EXPECT_THROW(Kernel::from_bias(std::vector<double>{0, INFINITY}), ArgumentError);
  EXPECT_THROW(draw_kernel_hashes(Kernel::laplace(2), 0, 0, 0), ArgumentError);
}

}  // namespace
}  // namespace poslsh
