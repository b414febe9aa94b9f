// The lines `poslsh check` and `poslsh verify` print: one per outcome and a
// closing tally (worded by check_verdict.h).
#pragma once

#include <string>
#include <vector>

#include "experiments/checks/check_outcome.h"

namespace poslsh {

// Prints one line per outcome ("PASS  name: detail") on stdout and counts them.
void print_outcomes(const std::vector<CheckOutcome>& outcomes, CheckTally& tally);
// The closing line of `poslsh check` and `poslsh verify`.
void print_tally(const CheckTally& tally);
// Under --strict: kUndecidedExitCode, with one line on stderr naming the
// families that could not decide and the first remedy, when any family has
// no deciding line; else 0.
int strict_exit_code(const CheckTally& tally, const std::string& who);

}  // namespace poslsh
