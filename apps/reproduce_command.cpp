// `poslsh reproduce --config configs/X.toml --out results/X`: runs every
// experiment the config has a section for, checks each table, draws the
// figures and writes report.md. Exit 0: all ran and all checks pass; 1: a
// check (or a plot) failed, the report is still written; 2: unusable input;
// 5 (--strict): a theorem family of a table had no line that could decide.
// With --shards N --launcher local|parallel|slurm each experiment runs as N
// shards (src/runner/launcher.h) merged by `poslsh merge`: the same tables.
//
// The steps, one file each: reproduce_plan (options, config, what to run),
// reproduce_run (the children), reproduce_checks, reproduce_figures and
// reproduce_report. Reproduce knows no experiment by name: each declares its
// figures and its report section in its registration (experiments/experiment.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "apps/commands.h"
#include "apps/reproduce_checks.h"
#include "apps/reproduce_figures.h"
#include "apps/reproduce_plan.h"
#include "apps/reproduce_report.h"
#include "apps/reproduce_run.h"
#include "experiments/checks/check_tally.h"

namespace poslsh {

namespace fs = std::filesystem;

namespace reproduce_steps {

int reproduce(const CLI::App& top, const ReproduceOptions& o) {
  const ReproducePlan plan = plan_reproduce(top, o);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Ran> ran = run_sections(plan, o);
  if (const int rc = early_exit_code(ran); rc != 0) return rc;
  CheckSummary checks = check_tables(ran);
  const fs::path plots = o.no_plots ? fs::path() : plot_scripts_dir();
  const std::vector<Figure> figures =
      o.no_plots ? std::vector<Figure>() : draw_figures(ran, plots, plan.out, o.quiet);
  const auto plot_failures =
      std::count_if(figures.begin(), figures.end(), [](const Figure& f) { return f.exit_code; });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const ReportDocument doc = reproduction_report(plan, o, {ran, checks, figures, plots, seconds});
  write_report_files(plan.out, checks.checks_csv, doc);
  if (!o.quiet)
    std::fprintf(stderr, "reproduce: %s (%d failed checks, %d failed plots); report: %s\n",
                 checks.failed ? "FAIL" : "PASS", checks.failed, static_cast<int>(plot_failures),
                 (fs::path(plan.out) / "report.md").c_str());
  if (checks.failed || plot_failures) return 1;
  return o.strict ? strict_exit_code(checks.outcomes, "poslsh reproduce") : 0;
}

}  // namespace reproduce_steps

Action add_reproduce_command(CLI::App& app) {
  auto o = std::make_shared<reproduce_steps::ReproduceOptions>();
  auto* cmd = app.add_subcommand(
      "reproduce",
      "Run every experiment of --config, check the tables, draw figures, write report.md");
  reproduce_steps::declare_reproduce_options(*cmd, *o);
  CLI::App* top = &app;
  return [o, top] { return reproduce_steps::reproduce(*top, *o); };
}

}  // namespace poslsh
