// The verdict of one check and the line that reports it: what `poslsh check`
// and `poslsh verify` print and what the Python module's verify_hashes and
// verify_blocks return, worded in one place. On the core alone (no runner:
// no tables, no CLI), so the Python module links it (poslsh_verification).
#pragma once

#include <string>
#include <vector>

namespace poslsh {

// kInfo: a reported number that is not a test (e.g. a bound whose slack makes
// failure impossible in practice); it never changes the exit code.
// kWarning: not a test either, but something the user should act on (e.g. an
// approximation that costs more than the exact computation); exit code unchanged.
enum class Verdict { kPass, kFail, kNotApplicable, kInfo, kWarning };

// The family-wise false-alarm rate of one whole `poslsh check` run on a sound
// sampler: check_file gets kCheckFamilyAlpha / (number of files), and each
// checker splits the alpha it is handed over its statistical checks
// (Bonferroni), so the rate holds under any dependence between the checks.
inline constexpr double kCheckFamilyAlpha = 1e-3;

// One line of `poslsh check` output.
struct CheckOutcome {
  std::string check;  // short name, e.g. "rate[n=1024,sigma=16] spectral"
  Verdict verdict;
  std::string detail;  // the numbers and the threshold
};

// "PASS", "FAIL", "n/a", "info", "WARN".
const char* verdict_name(Verdict v);

// The printed line of one outcome, "PASS  name: detail" (no newline).
std::string outcome_line(const CheckOutcome& outcome);

// The outcomes of a run counted by verdict, and its closing line ("checks: 3
// passed, 0 failed, ...", no newline).
struct CheckTally {
  int passed = 0, failed = 0, not_applicable = 0, info = 0, warnings = 0;
};
void count_outcome(const CheckOutcome& outcome, CheckTally& tally);
std::string tally_line(const CheckTally& tally);

}  // namespace poslsh
