// Length extrapolation, check 7 of `poslsh check` on attention tables
// (docs/MATH.md §7): at fixed (d, sigma, head, form, s), how each trial's
// lsh rel_frobenius_error moves with n (the exponent c in error ~ n^c, fitted
// within the reference's error bound) and how max_error grows; descriptive
// (info) lines, one per group with two or more n.
#pragma once

#include <vector>

#include "experiments/attention/attention_table.h"
#include "experiments/checks/check_outcome.h"

namespace poslsh::attention_checks {

// Appends the length lines of `tb`'s lsh rows to `out`, their sign-test
// numbers shown at `level`.
void length_lines(const Table& tb, double level, std::vector<CheckOutcome>& out);

}  // namespace poslsh::attention_checks
