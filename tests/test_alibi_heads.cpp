// The standard ALiBi heads against the slope lists of Press et al.'s reference
// get_slopes (fairseq, "Train Short, Test Long"), and the per-head seeds of
// --independent-heads.
#include <gtest/gtest.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/argument_error.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "experiments/argument_flags.h"
#include "runner/cli_common.h"

namespace poslsh {
namespace {

// The lists below are what the reference produces, pasted from Python 3
// (glibc libm), not from this implementation:
//
//   def get_slopes(n):
//       def get_slopes_power_of_2(n):
//           start = (2**(-2**-(math.log2(n)-3)))
//           ratio = start
//           return [start*ratio**i for i in range(n)]
//       if math.log2(n).is_integer():
//           return get_slopes_power_of_2(n)
//       else:
//           closest_power_of_2 = 2**math.floor(math.log2(n))
//           return (get_slopes_power_of_2(closest_power_of_2)
//                   + get_slopes(2*closest_power_of_2)[0::2][:n-closest_power_of_2])
//
// The reference accumulates rounding in start * ratio**i (up to 10 ulp at
// H = 32, e.g. 0.4999999999999999 for 2^-1), so the comparison allows a
// relative 1e-14, far below the factor (2^(4/P) >= 1.09 for H < 64) between
// any two heads.
const std::vector<double> kSlopes8 = {0.5,     0.25,     0.125,     0.0625,
                                      0.03125, 0.015625, 0.0078125, 0.00390625};
const std::vector<double> kSlopes12 = {0.5,
                                       0.25,
                                       0.125,
                                       0.0625,
                                       0.03125,
                                       0.015625,
                                       0.0078125,
                                       0.00390625,
                                       0.7071067811865476,
                                       0.35355339059327384,
                                       0.17677669529663692,
                                       0.08838834764831849};
const std::vector<double> kSlopes16 = {
    0.7071067811865476,   0.5000000000000001,   0.35355339059327384,  0.25000000000000006,
    0.17677669529663692,  0.12500000000000006,  0.08838834764831849,  0.06250000000000004,
    0.044194173824159244, 0.03125000000000002,  0.022097086912079626, 0.01562500000000001,
    0.011048543456039816, 0.007812500000000007, 0.005524271728019908, 0.003906250000000004};
const std::vector<double> kSlopes20 = {
    0.7071067811865476,   0.5000000000000001,   0.35355339059327384,  0.25000000000000006,
    0.17677669529663692,  0.12500000000000006,  0.08838834764831849,  0.06250000000000004,
    0.044194173824159244, 0.03125000000000002,  0.022097086912079626, 0.01562500000000001,
    0.011048543456039816, 0.007812500000000007, 0.005524271728019908, 0.003906250000000004,
    0.8408964152537145,   0.5946035575013604,   0.42044820762685714,  0.2973017787506802};
const std::vector<double> kSlopes32 = {
    0.8408964152537145,   0.7071067811865475,   0.5946035575013604,   0.4999999999999999,
    0.42044820762685714,  0.3535533905932737,   0.2973017787506802,   0.2499999999999999,
    0.21022410381342854,  0.17677669529663678,  0.14865088937534005,  0.12499999999999992,
    0.10511205190671426,  0.08838834764831839,  0.07432544468767001,  0.06249999999999995,
    0.052556025953357115, 0.04419417382415918,  0.037162722343835,    0.03124999999999997,
    0.02627801297667855,  0.022097086912079587, 0.018581361171917495, 0.015624999999999981,
    0.013139006488339273, 0.01104854345603979,  0.009290680585958746, 0.007812499999999989,
    0.006569503244169636, 0.005524271728019895, 0.004645340292979372, 0.003906249999999994};

// True when 1 / sigmas[h] is slopes[h] for every head, in order.
::testing::AssertionResult SigmasAreSlopes(const std::vector<double>& sigmas,
                                           const std::vector<double>& slopes) {
  if (sigmas.size() != slopes.size())
    return ::testing::AssertionFailure()
           << sigmas.size() << " sigmas for " << slopes.size() << " slopes";
  for (std::size_t h = 0; h < slopes.size(); ++h) {
    const double slope = 1.0 / sigmas[h];
    if (!(std::abs(slope - slopes[h]) <= 1e-14 * slopes[h]))
      return ::testing::AssertionFailure()
             << "head " << h + 1 << ": 1/sigma = " << slope << ", reference slope " << slopes[h];
  }
  return ::testing::AssertionSuccess();
}

// The rule of earlier versions: sigma_h = 2^(8h/H) for every H.
std::vector<double> old_rule(int heads) {
  std::vector<double> sigmas;
  for (int h = 1; h <= heads; ++h) sigmas.push_back(std::exp2(8.0 * h / heads));
  return sigmas;
}

TEST(AlibiHeads, MatchTheReferenceSlopeLists) {
  EXPECT_TRUE(SigmasAreSlopes(alibi_head_sigmas(8), kSlopes8));
  EXPECT_TRUE(SigmasAreSlopes(alibi_head_sigmas(12), kSlopes12));
  EXPECT_TRUE(SigmasAreSlopes(alibi_head_sigmas(16), kSlopes16));
  EXPECT_TRUE(SigmasAreSlopes(alibi_head_sigmas(20), kSlopes20));
  EXPECT_TRUE(SigmasAreSlopes(alibi_head_sigmas(32), kSlopes32));
}

TEST(AlibiHeads, SmallCountsByHand) {
  // get_slopes(1) = [2^-8]; get_slopes(3) = [2^-4, 2^-8] + get_slopes(4)[0::2][:1] = [.., 2^-2].
  EXPECT_EQ(alibi_head_sigmas(1), (std::vector<double>{256}));
  EXPECT_EQ(alibi_head_sigmas(2), (std::vector<double>{16, 256}));
  EXPECT_EQ(alibi_head_sigmas(3), (std::vector<double>{16, 256, 4}));
  // get_slopes(6) = get_slopes(4) + [2^-1, 2^-3] (every other slope of get_slopes(8)).
  EXPECT_EQ(alibi_head_sigmas(6), (std::vector<double>{4, 16, 64, 256, 2, 8}));
}

TEST(AlibiHeads, OldRuleFailsTheTwelveHeadListNegativeControl) {
  // The check above can fail: the rule of earlier versions is not the reference at H = 12
  // (its head 9 has 2^-6, the reference's 2^-0.5) ...
  EXPECT_FALSE(SigmasAreSlopes(old_rule(12), kSlopes12));
  EXPECT_FALSE(SigmasAreSlopes(old_rule(20), kSlopes20));
  // ... nor is a sorted list (the order is the heads').
  std::vector<double> sorted = alibi_head_sigmas(12);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_FALSE(SigmasAreSlopes(sorted, kSlopes12));
  // For powers of two the old rule was right, and the scales stay the same bits:
  // runs with --alibi-heads 8, 16, 32 keep their results.
  for (int h : {1, 2, 4, 8, 16, 32, 64}) EXPECT_EQ(alibi_head_sigmas(h), old_rule(h)) << h;
  EXPECT_TRUE(SigmasAreSlopes(old_rule(32), kSlopes32));
}

TEST(AlibiHeads, ConfigNoteMarksTheCountsWhoseScalesChanged) {
  for (int h : {1, 2, 4, 8, 16, 32}) EXPECT_EQ(alibi_heads_config_note(h), "") << h;
  EXPECT_EQ(alibi_heads_config_note(12),
            "# alibi-heads = 12: the scales of Press et al.'s get_slopes(12), not 2^(8h/H)\n");
  EXPECT_NE(alibi_heads_config_note(3), "");
}

TEST(AlibiHeads, FewerThanOneHeadIsAnArgumentError) {
  EXPECT_THROW(alibi_head_sigmas(0), InputError);
  EXPECT_THROW(alibi_head_sigmas(-3), InputError);
  try {
    alibi_head_sigmas(0);
  } catch (const ArgumentError& e) {
    // Named by meaning; the CLI reports it as --alibi-heads (flag_for).
    EXPECT_EQ(e.argument(), "heads");
    EXPECT_EQ(std::string(e.what()), "heads must be an integer >= 1 (got 0)");
  }
}

TEST(AlibiHeads, IndependentHeadSeedsAreFixedAndDistinct) {
  // Shared heads keep the run's seed.
  EXPECT_EQ(head_seed(7, 0, false), 7u);
  EXPECT_EQ(head_seed(7, 5, false), 7u);
  // Independent heads: the documented formula, pinned (values from Python), so
  // published runs stay reproducible.
  EXPECT_EQ(independent_head_seed(0, 0), 0x048591c6832d8aa6ULL);
  EXPECT_EQ(independent_head_seed(0, 1), 0xe8600291e4a3ff34ULL);
  EXPECT_EQ(independent_head_seed(0, 2), 0xaf213bd725d87cbaULL);
  EXPECT_EQ(independent_head_seed(7, 0), 0xd5b3054c7fd29935ULL);
  EXPECT_EQ(head_seed(7, 1, true), 0x83002403633e9fcfULL);
  std::set<std::uint64_t> seen;
  for (std::uint64_t seed : {0u, 1u, 2u})
    for (std::size_t h = 0; h < 1000; ++h) seen.insert(independent_head_seed(seed, h));
  EXPECT_EQ(seen.size(), 3000u);
}

TEST(AlibiHeads, IndependentHeadsNeedHeads) {
  EXPECT_NO_THROW(require_heads_for_independent(false, false));
  EXPECT_NO_THROW(require_heads_for_independent(false, true));
  EXPECT_NO_THROW(require_heads_for_independent(true, true));
  EXPECT_THROW(require_heads_for_independent(true, false), UsageError);
}

}  // namespace
}  // namespace poslsh
