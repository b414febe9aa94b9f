// Exact binomial tails, tests and intervals (Boost.Math's binomial law, no
// normal approximation): the one place the checks get them from.
#pragma once

#include <cstddef>
#include <cstdint>

namespace poslsh::stats {

// Two-sided exact p of k successes in h trials at success probability p:
// twice the smaller tail, capped at 1.
double binomial_two_sided_p(std::int64_t k, std::int64_t h, double p);

// The same when only bounds on the count are known: between `fewest` and
// `most` of `total` at or below a point of null probability `below` (`above`
// = 1 - below). Each one-sided tail is taken at the bound that makes it
// largest, so it is at least the true count's: a conservative exact test.
// Equal bounds give binomial_two_sided_p.
double censored_binomial_two_sided_p(std::int64_t fewest, std::int64_t most, std::int64_t total,
                                     double below, double above);

// The smallest k with P(Binomial(trials, p) > k) <= alpha: the most
// successes a one-sided level-alpha test allows.
std::int64_t binomial_upper_critical(std::int64_t trials, double p, double alpha);

// One-sided Clopper-Pearson bounds on a rate from k of n: P(rate < lower) <=
// level and P(rate > upper) <= level for any true rate.
double clopper_pearson_lower(std::int64_t k, std::int64_t n, double level);
double clopper_pearson_upper(std::int64_t k, std::int64_t n, double level);

// P(Binomial(m, 1/2) >= k): the sign test's tail.
double half_binomial_tail(std::size_t m, std::size_t k);

// The fewest trials whose sign test can reach the one-sided tail level
// (2^-m <= tail_level).
std::size_t sign_test_trials_needed(double tail_level);

}  // namespace poslsh::stats
