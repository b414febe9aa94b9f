#include "apps/reproduce_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <thread>

#include "experiments/experiment.h"
#include "runner/atomic_file.h"
#include "runner/csv_table.h"
#include "runner/version.h"

namespace poslsh::reproduce_steps {

namespace fs = std::filesystem;

namespace {

// A small CSV (a benchmark table) as report rows, numbers at 4 significant digits.
std::pair<std::vector<std::string>, std::vector<std::vector<std::string>>> report_table(
    const std::string& csv_path) {
  const CsvTable t = CsvTable::read(csv_path);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t r = 0; r < t.size(); ++r) {
    rows.push_back(t.row(r));
    for (auto& cell : rows.back()) cell = readable_number(cell);
  }
  return {t.columns(), rows};
}

// A directory inside the working directory, named relative to it: a report
// committed from a source tree then names no machine's home directory.
// Lexically, as the binary found it: a build tree links its plots into the
// sources, and resolving the link would lead outside.
std::string shown_directory(const fs::path& dir) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  const fs::path inside = ec ? fs::path() : dir.lexically_relative(cwd);
  if (inside.empty() || *inside.begin() == "..") return dir.string();
  return inside.string();
}

std::string execution_line(const ReproducePlan& plan) {
  const LaunchPlan& launch = plan.launch;
  if (!plan.sharded) return "execution: one process per experiment, on this machine";
  return fmt::format(
      "execution: each experiment as {} shard{} ({}, {} thread{} each), merged with `poslsh "
      "merge`; shard tables and logs in [shards/](shards/)",
      launch.shards, launch.shards == 1 ? "" : "s",
      launch.launcher == Launcher::kSlurm      ? "a SLURM job array"
      : launch.launcher == Launcher::kParallel ? "run by GNU parallel"
                                               : "local processes",
      launch.threads, launch.threads == 1 ? "" : "s");
}

// The report's opening bullets: what ran, where, how long, the verdict.
std::vector<std::string> report_header(const ReproducePlan& plan, const ReproduceOptions& o,
                                       const ReproductionResults& results) {
  const int failed = results.checks.failed;
  return {fmt::format("config: `{}`", plan.config),
          fmt::format("poslsh {} (commit `{}`)", kVersion, git_commit()),
          fmt::format("machine: {} hardware threads", std::thread::hardware_concurrency()),
          fmt::format("duration: {:.1f} s", results.seconds),
          execution_line(plan),
          o.no_plots ? std::string("plots: not drawn (--no-plots)")
                     : fmt::format("plot scripts: `{}`", shown_directory(results.plots)),
          plan.defect.sound()
              ? std::string("sampler: the real one")
              : fmt::format("sampler: **defect `{}` planted** (--plant-defect, a negative "
                            "control) in {}: checks are expected to FAIL",
                            plan.defect.name(), fmt::join(plan.plantable, ", ")),
          fmt::format("verdict: **{}**", failed ? fmt::format("{} checks FAILED", failed)
                                                : std::string("all checks passed"))};
}

void add_checks_section(ReportDocument& doc, const CheckSummary& checks) {
  doc.heading(2, "Checks");
  std::vector<std::vector<std::string>> family_rows;
  for (const auto& f : checks.families)
    family_rows.push_back({f.table, f.family, std::to_string(f.pass), std::to_string(f.fail),
                           std::to_string(f.info), std::to_string(f.not_applicable),
                           std::to_string(f.warn)});
  doc.paragraph(fmt::format(
      "Counts per table and family of checks (family-wise false-alarm rate <= {:g} on a sound "
      "sampler). Every check line, in full: [checks.csv](checks.csv).",
      kCheckFamilyAlpha));
  doc.table({"table", "family", "PASS", "FAIL", "info", "n/a", "WARN"}, family_rows);
  if (checks.failures.empty()) {
    doc.paragraph("No check failed.");
  } else {
    doc.paragraph("Failed checks, in full:");
    doc.bullets(checks.failures);
  }
  if (!checks.warnings.empty()) {
    doc.paragraph("Warnings (not failures; worth acting on):");
    doc.bullets(checks.warnings);
  }
}

void add_figures_section(ReportDocument& doc, const std::vector<Figure>& figures, bool no_plots) {
  doc.heading(2, "Figures");
  if (figures.empty())
    doc.paragraph(no_plots ? "(not drawn: --no-plots)" : "(no experiment with a figure ran)");
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const auto& f = figures[i];
    doc.heading(3, fmt::format("Figure {}: {}", i + 1, f.title));
    if (f.exit_code == 0)
      doc.figure(f.name + ".png", f.caption, {{"PDF", f.name + ".pdf"}, {"SVG", f.name + ".svg"}});
    else
      doc.paragraph(
          fmt::format("`plots/{}.py` failed (exit code {}): no figure.", f.script, f.exit_code));
  }
}

// The sections the experiments that ran declare for themselves, in run order.
void add_experiment_sections(ReportDocument& doc, const std::vector<Ran>& ran) {
  for (const auto& r : ran) {
    if (r.is_bench || r.exit_code != 0) continue;
    for (const auto& e : experiments())
      if (e.name == r.section && e.report_section) e.report_section(doc, r.csv);
  }
}

// The experiments table, the experiments' own sections and the benchmarks.
void add_results_sections(ReportDocument& doc, const std::vector<Ran>& ran,
                          const CheckSummary& checks) {
  doc.heading(2, "Experiments");
  std::vector<std::vector<std::string>> run_rows;
  for (const auto& r : ran)
    run_rows.push_back({r.section, fmt::format("[{0}]({0})", fs::path(r.csv).filename().string()),
                        std::to_string(r.exit_code), fmt::format("{:.1f}", r.seconds)});
  doc.table({"experiment", "table", "exit", "seconds"}, run_rows);
  add_experiment_sections(doc, ran);
  if (!checks.bench_tables.empty()) {
    doc.heading(2, "Benchmarks");
    for (const auto& [section, csv] : checks.bench_tables) {
      doc.heading(3, section);
      const auto [header, rows] = report_table(csv);
      doc.table(header, rows);
    }
  }
}

}  // namespace

ReportDocument reproduction_report(const ReproducePlan& plan, const ReproduceOptions& o,
                                   const ReproductionResults& results) {
  ReportDocument doc("poslsh reproduction report");
  doc.bullets(report_header(plan, o, results));
  doc.paragraph(
      "Each table's provenance (resolved options, seed, inputs' SHA-256, version) is in its "
      "`.meta.json`; `poslsh rerun TABLE.csv.meta.json --out X` runs it again. This report "
      "is also written as a self-contained `report.html`.");
  add_checks_section(doc, results.checks);
  add_figures_section(doc, results.figures, o.no_plots);
  add_results_sections(doc, results.ran, results.checks);
  doc.heading(2, "Configuration");
  doc.code(plan.toml, "toml");
  return doc;
}

void write_report_files(const std::string& out, CsvWriter& checks_csv, const ReportDocument& doc) {
  AtomicFile checks_file((fs::path(out) / "checks.csv").string(), "--out");
  checks_file.write(checks_csv.take());
  AtomicFile report((fs::path(out) / "report.md").string(), "--out");
  report.write(doc.markdown());
  AtomicFile html((fs::path(out) / "report.html").string(), "--out");
  html.write(doc.html(out));
  checks_file.commit();
  report.commit();
  html.commit();
}

}  // namespace poslsh::reproduce_steps
