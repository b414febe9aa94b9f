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
  // Set on a line that could not decide for want of data (too few trials,
  // too few values of s): what would let it decide, e.g. "use --trials >= 15".
  // Empty for a line that decided, or that has nothing to decide by design.
  std::string remedy{};
};

// "PASS", "FAIL", "n/a", "info", "WARN".
const char* verdict_name(Verdict v);

// The printed line of one outcome, "PASS  name: detail" (no newline).
std::string outcome_line(const CheckOutcome& outcome);

// The family a line belongs to: its name without the bracketed group
// ("rate[symmetric,n=256,sigma=4] max" -> "rate max").
std::string check_family(const std::string& check);

// The outcomes of a run counted by verdict, and its closing line ("checks: 3
// passed, 0 failed, ...", no newline). A line with a remedy counts as one
// that could not decide; the closing line names how many and the first remedy.
struct CheckTally {
  int passed = 0, failed = 0, not_applicable = 0, info = 0, warnings = 0, undecided = 0;
  std::string first_remedy{};
  // Families are kept per table: the caller sets `scope` (the file or
  // section) before counting a table's outcomes.
  std::string scope{};
  std::vector<std::string> decided_families{}, undecided_families{};
};
void count_outcome(const CheckOutcome& outcome, CheckTally& tally);
std::string tally_line(const CheckTally& tally);

// The families with a line that could not decide and no line that did
// (PASS or FAIL): what `check --strict` refuses.
std::vector<std::string> families_without_decision(const CheckTally& tally);
// The exit code of `check --strict` (and `reproduce` with strict_checks) when
// a family could not decide, as pytest's 5 says no test ran.
inline constexpr int kUndecidedExitCode = 5;

}  // namespace poslsh
