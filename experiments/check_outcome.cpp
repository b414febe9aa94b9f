#include "experiments/check_outcome.h"

#include "runner/rate_interval.h"

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

Verdict rate_verdict(const RateInterval& ri) {
  return ri.fails ? Verdict::kFail : ri.testable ? Verdict::kPass : Verdict::kInfo;
}

}  // namespace poslsh
