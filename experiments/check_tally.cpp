#include "experiments/check_tally.h"

#include <fmt/format.h>

namespace poslsh {

void print_outcomes(const std::vector<CheckOutcome>& outcomes, CheckTally& tally) {
  for (const auto& c : outcomes) {
    fmt::print("{}\n", outcome_line(c));
    count_outcome(c, tally);
  }
}

void print_tally(const CheckTally& t) { fmt::print("{}\n", tally_line(t)); }

}  // namespace poslsh
