// The checks of a reproduction: every table that ran is checked (`poslsh
// check`'s checks, each at its Bonferroni share of kCheckFamilyAlpha); every
// outcome goes to checks.csv, and the report summarises them per table and
// family and quotes every FAIL and WARN in full. Benchmarks are reported, not
// checked.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "apps/reproduce_run.h"
#include "experiments/checks/check_outcome.h"
#include "runner/csv_writer.h"

namespace poslsh::reproduce_steps {

struct CheckSummary {
  struct Family {
    std::string table, family;
    int pass = 0, fail = 0, info = 0, not_applicable = 0, warn = 0;
  };
  std::vector<Family> families;
  std::vector<std::string> failures, warnings;
  CsvWriter checks_csv{{"table", "verdict", "check", "detail"}};  // details hold commas
  std::vector<std::pair<std::string, std::string>> bench_tables;  // (section, csv)
  int failed = 0;
  CheckTally outcomes;  // every table's lines, scoped by section: what --strict reads

  void tally(const std::string& table, const std::string& check, Verdict v,
             const std::string& detail);
};

// The checks of every table that ran; a section that failed is one FAIL ("run").
CheckSummary check_tables(const std::vector<Ran>& ran);

}  // namespace poslsh::reproduce_steps
