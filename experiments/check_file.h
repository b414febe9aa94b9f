// `poslsh check` on one file: the experiment whose checker recognises the
// table's columns, and its outcomes.
#pragma once

#include <string>
#include <vector>

#include "experiments/checks/check_outcome.h"

namespace poslsh {

// Checks on one CSV file: finds the experiment by its columns and runs its
// checker. Throws InputError for an unreadable file, a table no experiment
// recognises or one its checker finds unusable.
struct CheckReport {
  std::string experiment;
  std::vector<CheckOutcome> outcomes;
};
CheckReport check_file(const std::string& path, double alpha = kCheckFamilyAlpha);

}  // namespace poslsh
