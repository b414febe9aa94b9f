#include "experiments/checks/check_tally.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace poslsh {

void print_outcomes(const std::vector<CheckOutcome>& outcomes, CheckTally& tally) {
  for (const auto& c : outcomes) {
    fmt::print("{}\n", outcome_line(c));
    count_outcome(c, tally);
  }
}

void print_tally(const CheckTally& t) { fmt::print("{}\n", tally_line(t)); }

int strict_exit_code(const CheckTally& t, const std::string& who) {
  const auto families = families_without_decision(t);
  if (families.empty()) return 0;
  fmt::print(stderr, "{}: --strict: no line could decide for {} ({}): {}\n", who,
             families.size() == 1 ? "1 family" : fmt::format("{} families", families.size()),
             fmt::join(families, ", "), t.first_remedy);
  return kUndecidedExitCode;
}

}  // namespace poslsh
