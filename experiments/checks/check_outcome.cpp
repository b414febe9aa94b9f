#include "experiments/checks/check_outcome.h"

#include "experiments/checks/rate_interval.h"

namespace poslsh {

Verdict rate_verdict(const RateInterval& ri) {
  return ri.fails ? Verdict::kFail : ri.testable ? Verdict::kPass : Verdict::kInfo;
}

}  // namespace poslsh
