// The vocabulary of checks: what a checker returns for one table (one
// CheckOutcome per line of `poslsh check`), its verdicts, and the family-wise
// false-alarm rate the checks of one run share.
#pragma once

#include <poslsh/input_error.h>

#include <functional>
#include <string>
#include <vector>

#include "runner/csv_table.h"

namespace poslsh {

// kInfo: a reported number that is not a test (e.g. a bound whose slack makes
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

struct Checker {
  // A table belongs to this experiment when it has all these columns.
  std::vector<std::string> required_columns;
  // alpha: the family-wise false-alarm rate this table's checks may spend
  // together. Throws InputError for an unusable table (a bound or
  // derived column that disagrees with its recomputation from the parameters,
  // a NaN or infinite measurement, a duplicated column).
  std::function<std::vector<CheckOutcome>(const CsvTable&, double alpha)> run;
};

const char* verdict_name(Verdict v);

// The verdict of a rate test (src/runner/rate_interval.h): FAIL when the interval
// lies outside the band, PASS when it is inside and the test could have
// failed, info when it has too few trials for that.
struct RateInterval;
Verdict rate_verdict(const RateInterval& interval);

// A checker's verdict on a table it cannot use (a NaN bound, a missing
// trial, ...): InputError, one line naming the row and column.
[[noreturn]] inline void unusable(const std::string& what) { throw InputError(what); }

}  // namespace poslsh
