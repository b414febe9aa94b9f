// HashParameters (include/poslsh/hash_parameters.h): every domain error with
// its message; a core function called with raw values still refuses bad ones;
// the functions taking the type agree bit for bit with their raw forms and
// check only what the type does not hold.
#include <gtest/gtest.h>
#include <poslsh/alibi_kernel.h>
#include <poslsh/argument_error.h>
#include <poslsh/block_size_law.h>
#include <poslsh/bounds.h>
#include <poslsh/error_operator.h>
#include <poslsh/hash_parameters.h>
#include <poslsh/max_error.h>
#include <poslsh/pitch_law.h>
#include <poslsh/positional_hash.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "error_kinds.h"

namespace poslsh {
namespace {

constexpr double kNotANumber = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The message of the ArgumentError `call` throws, checked to name `argument`
// (empty, and a test failure, when it throws none).
std::string argument_refusal(const std::function<void()>& call, const std::string& argument) {
  try {
    call();
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no ArgumentError naming " << argument;
  return "";
}

// The checked parameters travel whole into the drawer: its HashParameters
// form draws the same hashes as the plain-number one, which is the one that
// checks sigma and s (by building a HashParameters) and names them.
TEST(HashParameters, DrawHashesTakesThemWhole) {
  const auto from_numbers = draw_hashes(42, 3, 5, 8.0);
  const auto from_parameters = draw_hashes(42, 3, HashParameters(1024, 8.0, 5));
  ASSERT_EQ(from_parameters.size(), 5u);
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(from_parameters[k].pitch, from_numbers[k].pitch);
    EXPECT_EQ(from_parameters[k].shift, from_numbers[k].shift);
  }
  EXPECT_NE(argument_refusal([] { draw_hashes(42, 3, 0, 8.0); }, "s"), "");
  EXPECT_NE(argument_refusal([] { draw_hashes(42, 3, 5, -1.0); }, "sigma"), "");
}

TEST(HashParameters, KeepsValidValues) {
  const HashParameters h(4096, 16.5, 64);
  EXPECT_EQ(h.n(), 4096);
  EXPECT_EQ(h.sigma(), 16.5);
  EXPECT_EQ(h.s(), 64);
  EXPECT_EQ(h, HashParameters(4096, 16.5, 64));
  EXPECT_NE(h, HashParameters(4096, 16.5, 65));
  // The smallest values each parameter accepts, and the smallest positive sigma.
  const HashParameters least(1, std::numeric_limits<double>::denorm_min(), 1);
  EXPECT_EQ(least.n(), 1);
  EXPECT_EQ(least.s(), 1);
}

TEST(HashParameters, EveryDomainErrorNamesItsParameter) {
  struct Case {
    std::int64_t n;
    double sigma;
    std::int64_t s;
    std::string argument, what;
  };
  const std::vector<Case> cases = {
      {0, 4.0, 8, "n", "n must be an integer >= 1 (got 0)"},
      {-5, 4.0, 8, "n", "n must be an integer >= 1 (got -5)"},
      {16, 0.0, 8, "sigma", "sigma must be a finite number > 0 (got 0)"},
      {16, -0.0, 8, "sigma", "sigma must be a finite number > 0 (got -0)"},
      {16, -1.0, 8, "sigma", "sigma must be a finite number > 0 (got -1)"},
      {16, kNotANumber, 8, "sigma", "sigma must be a finite number > 0 (got nan)"},
      {16, kInfinity, 8, "sigma", "sigma must be a finite number > 0 (got inf)"},
      {16, -kInfinity, 8, "sigma", "sigma must be a finite number > 0 (got -inf)"},
      {16, 4.0, 0, "s", "s must be an integer in [1, 2^31 - 1] (got 0)"},
      {16, 4.0, -2, "s", "s must be an integer in [1, 2^31 - 1] (got -2)"},
      {16, 4.0, kMaxHashes + 1, "s", "s must be an integer in [1, 2^31 - 1] (got 2147483648)"},
      // Several bad: the first of n, sigma, s is named.
      {0, kNotANumber, 0, "n", "n must be an integer >= 1 (got 0)"},
      {16, kNotANumber, 0, "sigma", "sigma must be a finite number > 0 (got nan)"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(argument_refusal([&] { HashParameters(c.n, c.sigma, c.s); }, c.argument), c.what);
}

// The raw-argument entries refuse bad values in the same words: each builds
// the type at its entry.
TEST(HashParameters, RawCoreEntriesStillRefuseBadValues) {
  const std::string bad_sigma = "sigma must be a finite number > 0 (got -1)";
  const std::string bad_n = "n must be an integer >= 1 (got 0)";
  const std::string bad_s = "s must be an integer in [1, 2^31 - 1] (got 0)";
  const auto hashes = draw_hashes(1, 0, 4, 2.0);
  EXPECT_EQ(argument_refusal([] { spectral_bound(64, -1.0, 4, 0.01); }, "sigma"), bad_sigma);
  EXPECT_EQ(argument_refusal([] { spectral_bound_terms(0, 2.0, 4, 0.01); }, "n"), bad_n);
  EXPECT_EQ(argument_refusal([] { b_max_bound(64, -1.0, 4, 0.01); }, "sigma"), bad_sigma);
  EXPECT_EQ(argument_refusal([] { max_bound(64, 0, 0.01); }, "s"), bad_s);
  EXPECT_EQ(argument_refusal([] { validate_bound_parameters(64, 2.0, 4, 1.0); }, "p"),
            "p must be a number in (0, 1) (got 1)");
  EXPECT_EQ(argument_refusal([] { AlibiKernel(64, -1.0); }, "sigma"), bad_sigma);
  EXPECT_EQ(argument_refusal([] { AlibiKernel(0, 2.0); }, "n"), bad_n);
  EXPECT_EQ(argument_refusal([&] { ErrorOperator(64, hashes, -1.0); }, "sigma"), bad_sigma);
  EXPECT_EQ(argument_refusal([&] { ErrorOperator(0, hashes, 2.0); }, "n"), bad_n);
  const MaskMean mask(64, hashes);
  EXPECT_EQ(argument_refusal([&] { entrywise_error(mask, -1.0); }, "sigma"), bad_sigma);
  EXPECT_EQ(argument_refusal([] { BlockSizeLaw(64, -1.0, 4); }, "sigma"), bad_sigma);
  EXPECT_EQ(argument_refusal([] { law_deviation_rate(0, 2.0, 4); }, "n"), bad_n);
  EXPECT_EQ(argument_refusal([] { law_applies(64, 2.0, 0, 10); }, "s"), bad_s);
  EXPECT_EQ(argument_refusal([] { expected_max_pitch(-1.0, 4); }, "sigma"), bad_sigma);
  EXPECT_EQ(argument_refusal([] { validate_hash_parameters(64, kNotANumber, 4); }, "sigma"),
            "sigma must be a finite number > 0 (got nan)");
}

// A HashParameters is valid for as long as it exists: it has no default
// value, no setter, and copies run no check (they cannot throw), so passing
// it whole into the operators and bounds carries the one check with it.
TEST(HashParameters, OnceBuiltItIsCopiedWithoutAnotherCheck) {
  static_assert(!std::is_default_constructible_v<HashParameters>);
  static_assert(std::is_trivially_copyable_v<HashParameters>);
  static_assert(std::is_nothrow_copy_constructible_v<HashParameters>);
  static_assert(!std::is_constructible_v<HashParameters, std::int64_t, double>);
  const HashParameters built(64, 2.0, 4);
  const HashParameters copy = built;
  EXPECT_EQ(copy, built);
}

// The type's functions check only what it does not hold: p (the bound's own
// argument) and that the hashes given are s of them.
TEST(HashParameters, TypedEntriesCheckOnlyTheirOwnArguments) {
  const HashParameters h(64, 2.0, 4);
  EXPECT_EQ(argument_refusal([&] { spectral_bound(h, 0.0); }, "p"), "p must be a number in (0, 1) (got 0)");
  EXPECT_EQ(argument_refusal([&] { max_bound(h, kNotANumber); }, "p"), "p must be a number in (0, 1) (got nan)");
  EXPECT_EQ(argument_refusal([&] { b_max_bound(h, 1.5); }, "p"), "p must be a number in (0, 1) (got 1.5)");
  EXPECT_EQ(argument_refusal([&] { law_applies(h, 0); }, "trials"),
            "trials must be an integer >= 1 (got 0)");
  const auto three = draw_hashes(1, 0, 3, 2.0);
  testing::expect_broken_invariant([&] { ErrorOperator(h, three); });
  // The mask's own limit is the mask's to check, not the parameters'.
  const HashParameters too_long(std::int64_t{1} << 32, 2.0, 4);
  const auto four = draw_hashes(1, 0, 4, 2.0);
  EXPECT_EQ(argument_refusal([&] { ErrorOperator(too_long, four); }, "n"),
            "n must be an integer < 2^32 (positions are 32-bit) (got 4294967296)");
}

// Routing through the type changes no number: the typed and raw forms agree
// bit for bit (the CSVs stay byte-identical; the golden tests check that end
// to end).
TEST(HashParameters, TypedAndRawFormsAgreeExactly) {
  for (const Form form : {Form::kSymmetric, Form::kCausal})
    for (const double sigma : {0.5, 3.0, 40.0})
      for (const std::int64_t s : {1, 7, 64}) {
        const std::int64_t n = 300;
        const HashParameters h(n, sigma, s);
        const double p = 0.01;
        EXPECT_EQ(spectral_bound(h, p, form), spectral_bound(n, sigma, s, p, form));
        EXPECT_EQ(max_bound(h, p), max_bound(n, s, p));
        EXPECT_EQ(b_max_bound(h, p), b_max_bound(n, sigma, s, p));
        EXPECT_EQ(law_deviation_rate(h), law_deviation_rate(n, sigma, s));
        EXPECT_EQ(BlockSizeLaw(h).parameters(), h);
        EXPECT_EQ(mean(BlockSizeLaw(h)), mean(BlockSizeLaw(n, sigma, s)));
        EXPECT_EQ(tail(PitchLaw(h), 2.5 * sigma), tail(PitchLaw(sigma), 2.5 * sigma));
        const auto hashes = draw_hashes(9, 2, s, sigma);
        const ErrorOperator typed(h, hashes, form), raw(n, hashes, sigma, form);
        EXPECT_EQ(typed.dense(), raw.dense());
        EXPECT_EQ(AlibiKernel(h, form).dense(), AlibiKernel(n, sigma, form).dense());
        const EntrywiseError a = entrywise_error(typed), b = entrywise_error(raw.mask(), sigma);
        EXPECT_EQ(a.max_error, b.max_error);
        EXPECT_EQ(a.inf_error, b.inf_error);
        EXPECT_EQ(a.largest_block, b.largest_block);
      }
}

}  // namespace
}  // namespace poslsh
