// The reproduction report: report.md and a self-contained report.html
// (runner/report_document.h), with checks.csv beside them. Its sections, in
// order: what ran and the verdict; the checks per table and family; the
// figures; the table of experiments; each experiment's own section
// (ExperimentRegistration::report_section); the benchmarks; the config.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "apps/reproduce_checks.h"
#include "apps/reproduce_figures.h"
#include "apps/reproduce_plan.h"
#include "apps/reproduce_run.h"
#include "runner/report_document.h"

namespace poslsh::reproduce_steps {

// What a finished reproduction hands its report.
struct ReproductionResults {
  const std::vector<Ran>& ran;
  const CheckSummary& checks;
  const std::vector<Figure>& figures;
  std::filesystem::path plots;  // the plot scripts' directory; empty with --no-plots
  double seconds = 0;           // the whole run's wall-clock time
};

ReportDocument reproduction_report(const ReproducePlan& plan, const ReproduceOptions& o,
                                   const ReproductionResults& results);

// checks.csv, report.md and report.html in `out`, each written atomically.
void write_report_files(const std::string& out, CsvWriter& checks_csv, const ReportDocument& doc);

}  // namespace poslsh::reproduce_steps
