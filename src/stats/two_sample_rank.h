// The exact two-sample rank test of the attention checks' error-law lines
// (docs/MATH.md §9, "Attention errors against an independent sampler").
//
// Null hypothesis: the m + k values are exchangeable — e.g. i.i.d., as the
// errors of m trials of a sound sampler and of k trials of an independent
// reference sampler are, whatever their common law (atoms and ties
// included). With U> = #{(i, j) : x_i > y_j} and U< = #{(i, j) : x_i < y_j}
// (strict: a tie counts for neither), U> is at most the Mann–Whitney count of
// the same values with ties broken at random, whose law under the null is
// that of m + k distinct exchangeable values: every ordering equally likely.
// So P(U> >= u) <= P_exact(U >= u), computed exactly (by counting orderings)
// while m k <= kExactRankPairs, and bounded by Hoeffding's inequality for
// two-sample U-statistics, P(U/(m k) - 1/2 >= t) <= exp(-2 min(m, k) t^2),
// beyond. The two-sided p-value is min(1, 2 min(p>, p<)): under the null
// P(p <= a) <= a for every a.
#pragma once

#include <cstddef>
#include <span>

namespace poslsh::stats {

inline constexpr std::size_t kExactRankPairs = 4096;

struct RankTest {
  std::size_t m = 0, k = 0;          // sample sizes: tested, control
  std::size_t above = 0, below = 0;  // U> and U<
  double p_above = 1, p_below = 1;   // one-sided tails (conservative with ties)
  double p = 1;                      // two-sided
  double smallest_p = 1;             // the smallest p any outcome can give
  bool exact = true;                 // false: Hoeffding's bound
};

// Throws std::logic_error (a caller's bug) for an empty sample or a NaN value.
RankTest two_sample_rank_test(std::span<const double> x, std::span<const double> y);

// P(U >= u) for m and k exchangeable distinct values (u > m k: 0).
double rank_upper_tail(std::size_t m, std::size_t k, std::size_t u);

// The smallest two-sided p-value with m and k values: 2 / C(m + k, m) (exact),
// 2 exp(-min(m, k) / 2) (Hoeffding).
double smallest_rank_p(std::size_t m, std::size_t k);

// The fewest trials m, with m control trials, whose smallest two-sided p-value
// is <= level.
std::size_t rank_test_trials_needed(double level);

}  // namespace poslsh::stats
