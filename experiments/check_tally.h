// The lines `poslsh check` and `poslsh verify` print: one per outcome and a
// closing tally (worded by check_verdict.h).
#pragma once

#include <vector>

#include "experiments/check_outcome.h"

namespace poslsh {

// Prints one line per outcome ("PASS  name: detail") on stdout and counts them.
void print_outcomes(const std::vector<CheckOutcome>& outcomes, CheckTally& tally);
// The closing line of `poslsh check` and `poslsh verify`.
void print_tally(const CheckTally& tally);

}  // namespace poslsh
