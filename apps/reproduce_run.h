// Running a reproduce plan: each section as a child `poslsh` (its command,
// the config, --out <out>/<name>.csv), one after the other on this machine,
// or as shards through the plan's launcher merged by `poslsh merge`
// (runner/launcher.h); under SLURM every experiment's job array is submitted
// at once. Progress goes to stderr; the children write the tables.
#pragma once

#include <string>
#include <vector>

#include "apps/reproduce_plan.h"

namespace poslsh::reproduce_steps {

// One experiment (or benchmark) run by reproduce.
struct Ran {
  std::string section, csv;
  bool is_bench = false;
  int exit_code = 0;
  double seconds = 0;
};

// Runs the plan's sections, in order; stops at the first that reports
// unusable input (2) or an interruption (130, 143).
std::vector<Ran> run_sections(const ReproducePlan& plan, const ReproduceOptions& o);

// The exit code that ends reproduce before the checks (unusable input,
// interruption), or 0 to go on.
int early_exit_code(const std::vector<Ran>& ran);

}  // namespace poslsh::reproduce_steps
