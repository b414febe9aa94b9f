#include "experiments/check_verdict.h"

#include <fmt/format.h>

namespace poslsh {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kInfo:
      return "info";
    case Verdict::kWarning:
      return "WARN";
    default:
      return "n/a";
  }
}

std::string outcome_line(const CheckOutcome& c) {
  return fmt::format("{:<4}  {}: {}", verdict_name(c.verdict), c.check, c.detail);
}

void count_outcome(const CheckOutcome& c, CheckTally& tally) {
  (c.verdict == Verdict::kFail      ? tally.failed
   : c.verdict == Verdict::kPass    ? tally.passed
   : c.verdict == Verdict::kInfo    ? tally.info
   : c.verdict == Verdict::kWarning ? tally.warnings
                                    : tally.not_applicable)++;
}

std::string tally_line(const CheckTally& t) {
  return fmt::format(
      "checks: {} passed, {} failed, {} not applicable, {} info{} (family-wise false-alarm rate "
      "of this run <= {:g} on a sound sampler)",
      t.passed, t.failed, t.not_applicable, t.info,
      t.warnings ? fmt::format(", {} WARN", t.warnings) : "", kCheckFamilyAlpha);
}

}  // namespace poslsh
