// Chernoff bounds on the mean of i.i.d. copies of a finite law: tail bounds
// valid for any count, with no normal approximation.
#pragma once

#include <cstdint>
#include <vector>

namespace poslsh::stats {

// A law on finitely many values (probabilities summing to 1).
struct FiniteLaw {
  std::vector<double> value, prob;
  double mean() const;
};

// Two-sided p-value bound from the Chernoff inequality for the sum S of
// `count` i.i.d. copies of V ~ law: with d = S / count - E[V] and I the Cramer
// rate function of the law, min(1, 2 exp(-count I(E[V] + d))). Valid for any
// count and any law (P(S / count - E V >= d) <= exp(-count I(E V + d)) for
// d >= 0, the same below), so a test rejecting when it is <= alpha has
// false-alarm probability <= alpha with no approximation.
double chernoff_two_sided_p(const FiniteLaw& law, double sum, double count);
// The smallest deviation |d| of the mean in direction dir (+1 or -1) whose
// chernoff_two_sided_p is <= level; infinity when none within the support.
double chernoff_critical_deviation(const FiniteLaw& law, double count, double level, double dir);


double variance(const FiniteLaw& law);

// Upper bound on P(mean of `count` draws >= m) for m >= E V, or on
// P(mean <= m) for m <= E V: exp(-count sup_theta (theta m - log E e^(theta V)))
// with theta searched in [theta_lo, theta_hi] only (any theta gives a valid
// bound; a restricted range keeps a law truncated far in its tail honest).
double chernoff_mean_tail(const FiniteLaw& law, double m, double count, double theta_lo,
                          double theta_hi);

}  // namespace poslsh::stats
