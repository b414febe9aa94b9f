#include "experiments/checks/check_verdict.h"

#include <fmt/format.h>

#include <algorithm>

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

std::string check_family(const std::string& check) {
  std::string out;
  int depth = 0;
  for (const char c : check) {
    if (c == '[') ++depth;
    if (depth == 0 && !(c == ' ' && (out.empty() || out.back() == ' '))) out += c;
    if (c == ']' && depth > 0) --depth;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

namespace {

void add_family(std::vector<std::string>& families, const std::string& family) {
  if (std::find(families.begin(), families.end(), family) == families.end())
    families.push_back(family);
}

}  // namespace

void count_outcome(const CheckOutcome& c, CheckTally& tally) {
  const std::string family =
      tally.scope.empty() ? check_family(c.check) : tally.scope + ": " + check_family(c.check);
  if (c.verdict == Verdict::kPass || c.verdict == Verdict::kFail)
    add_family(tally.decided_families, family);
  if (!c.remedy.empty()) {
    ++tally.undecided;
    if (tally.first_remedy.empty()) tally.first_remedy = c.remedy;
    add_family(tally.undecided_families, family);
  }
  (c.verdict == Verdict::kFail      ? tally.failed
   : c.verdict == Verdict::kPass    ? tally.passed
   : c.verdict == Verdict::kInfo    ? tally.info
   : c.verdict == Verdict::kWarning ? tally.warnings
                                    : tally.not_applicable)++;
}

std::string tally_line(const CheckTally& t) {
  return fmt::format(
      "checks: {} passed, {} failed, {} not applicable, {} info{}{} (family-wise false-alarm "
      "rate of this run <= {:g} on a sound sampler)",
      t.passed, t.failed, t.not_applicable, t.info,
      t.warnings ? fmt::format(", {} WARN", t.warnings) : "",
      t.undecided ? fmt::format("; {} could not decide: {}", t.undecided, t.first_remedy) : "",
      kCheckFamilyAlpha);
}

std::vector<std::string> families_without_decision(const CheckTally& t) {
  std::vector<std::string> out;
  for (const auto& f : t.undecided_families)
    if (std::find(t.decided_families.begin(), t.decided_families.end(), f) ==
        t.decided_families.end())
      out.push_back(f);
  return out;
}

}  // namespace poslsh
