// The vocabulary of checks: what a checker returns for one table (one
// CheckOutcome per line of `poslsh check`; the verdicts, the outcome and the
// family-wise false-alarm rate the checks of one run share are in
// check_verdict.h, which the Python module links too).
#pragma once

#include <poslsh/input_error.h>

#include <functional>
#include <string>
#include <vector>

#include "experiments/checks/check_verdict.h"
#include "runner/csv_table.h"

namespace poslsh {

struct Checker {
  // A table belongs to this experiment when it has all these columns.
  std::vector<std::string> required_columns;
  // alpha: the family-wise false-alarm rate this table's checks may spend
  // together. Throws InputError for an unusable table (a bound or
  // derived column that disagrees with its recomputation from the parameters,
  // a NaN or infinite measurement, a duplicated column).
  std::function<std::vector<CheckOutcome>(const CsvTable&, double alpha)> run;
};

// The verdict of a rate test (experiments/checks/rate_interval.h): FAIL when the interval
// lies outside the band, PASS when it is inside and the test could have
// failed, info when it has too few trials for that.
struct RateInterval;
Verdict rate_verdict(const RateInterval& interval);

// A checker's verdict on a table it cannot use (a NaN bound, a missing
// trial, ...): InputError, one line naming the row and column.
[[noreturn]] inline void unusable(const std::string& what) { throw InputError(what); }

}  // namespace poslsh
