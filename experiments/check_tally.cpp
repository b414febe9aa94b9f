#include "experiments/check_tally.h"

#include <fmt/format.h>

namespace poslsh {

void print_outcomes(const std::vector<CheckOutcome>& outcomes, CheckTally& tally) {
  for (const auto& c : outcomes) {
    fmt::print("{:<4}  {}: {}\n", verdict_name(c.verdict), c.check, c.detail);
    (c.verdict == Verdict::kFail      ? tally.failed
     : c.verdict == Verdict::kPass    ? tally.passed
     : c.verdict == Verdict::kInfo    ? tally.info
     : c.verdict == Verdict::kWarning ? tally.warnings
                                      : tally.not_applicable)++;
  }
}

void print_tally(const CheckTally& t) {
  fmt::print(
      "checks: {} passed, {} failed, {} not applicable, {} info{} (family-wise false-alarm rate "
      "of this run <= {:g} on a sound sampler)\n",
      t.passed, t.failed, t.not_applicable, t.info,
      t.warnings ? fmt::format(", {} WARN", t.warnings) : "", kCheckFamilyAlpha);
}

}  // namespace poslsh
