// `poslsh reproduce --config configs/X.toml --out results/X`: runs every
// experiment the config has a section for, checks each table, draws the
// figures and writes report.md. Exit 0: all ran and all checks pass; 1: a
// check (or a plot) failed, the report is still written; 2: unusable input.
// With --shards N --launcher local|parallel|slurm each experiment runs as N
// shards (src/runner/launcher.h) merged by `poslsh merge`: the same tables.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "commands.h"
#include "experiments/check_file.h"
#include "experiments/experiment.h"
#include "experiments/lm.h"
#include "experiments/planted_defect.h"
#include "experiments/power.h"
#include "runner/atomic_file.h"
#include "runner/child_process.h"
#include "runner/cli_common.h"
#include "runner/config_syntax.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"
#include "runner/data_files.h"
#include "runner/launcher.h"
#include "runner/report_document.h"
#include "runner/sweep.h"
#include "runner/version.h"

namespace poslsh {

namespace fs = std::filesystem;

// A named namespace, not an anonymous one: the runner is a unity build, and
// names such as Figure or seconds_since recur in other files.
namespace reproduce_steps {

// The plot scripts that draw each experiment's figures: plots/<script>.py CSV
// -o <file>.png, file = name, or the script's name when name is empty (two
// sections draw with one script: attention and attention-length, error vs n).
struct FigureScript {
  std::string experiment, script, name;
  const std::string& file() const { return name.empty() ? script : name; }
};
const std::vector<FigureScript>& figure_scripts() {
  static const std::vector<FigureScript> f = {
      {"convergence", "convergence_error_vs_s", ""},
      {"convergence", "convergence_constant_vs_n", ""},
      {"blocksize", "blocksize_law", ""},
      {"attention", "attention_error_vs_s", ""},
      {"attention", "attention_error_vs_n", ""},
      {"attention-length", "attention_error_vs_n", "attention_length_vs_n"},
      {"bench.attention", "attention_time_vs_n", ""},
      {"lm", "lm_loss_vs_s", ""},
      {"lm", "lm_frontier", ""},
      {"lm", "lm_learning_curves", ""},
      {"lm", "lm_finetune", ""},
      {"lm", "lm_loss_vs_length", ""},
      {"lm", "lm_swapin_error_vs_s", ""},
  };
  return f;
}

// The plot scripts, found beside the binary (runner/data_files.h). Throws
// InputError when they are not there.
fs::path plot_scripts_dir() {
  if (const auto dir = find_data_dir("plots/plotlib.py")) return *dir / "plots";
  std::string searched;
  for (const fs::path& dir : data_dirs())
    searched += (searched.empty() ? "" : ", ") + (dir / "plots").string();
  throw InputError(
      fmt::format("reproduce: the plot scripts are not beside this binary (searched {}); "
                  "reinstall poslsh, or give --no-plots",
                  searched));
}

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

// A Markdown table ("| a | b |" lines, a |---| separator) as header and rows.
std::pair<std::vector<std::string>, std::vector<std::vector<std::string>>> parse_markdown_table(
    const std::string& md) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) {
    if (line.size() < 2 || line.front() != '|') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1, line.size() - 2));
    for (std::string cell; std::getline(ss, cell, '|');) {
      const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    if (!cells.empty() && cells.front().starts_with("---")) continue;
    lines.push_back(std::move(cells));
  }
  if (lines.empty()) return {};
  std::vector<std::string> header = lines.front();
  lines.erase(lines.begin());
  return {header, lines};
}

// "Language models": what the lm summary shows, in sentences, and its table.
void add_lm_section(ReportDocument& doc, const CsvTable& summary, const std::string& summary_file) {
  doc.heading(2, "Language models");
  doc.paragraph(fmt::format(
      "Small byte-level ALiBi transformers trained here from scratch (`poslsh lm`; the "
      "configuration is below), compared with positional-LSH attention and the baselines. What "
      "the numbers show, against exact ALiBi (intervals: 95% Student-t over the seeds; full "
      "summary: [{0}]({0})):",
      summary_file));
  doc.bullets(lm_findings(summary));
  const LmLossTable table = lm_loss_table(summary);
  doc.table(table.header, table.rows);
  doc.paragraph(
      "Equal cost: keys per query summed over hashes (lsh, measured on its own training draws), "
      "over evenly shifted fixed grids and for the causal window, matched per head to lsh at "
      "the same s (where lsh costs more than exact attention, the window is the whole context and "
      "costs less); a window as costly as s hashes has truncation error about e^(-s) while "
      "positional LSH's falls like s^(-1/2) (docs/MATH.md §8). CPU time per step: this run's, "
      "one thread per training, with dense [heads, n, n] biases for every variant, so variants "
      "differ by their bias construction, not by a block-sparse kernel's work.");
  const LmLossTable finetune = lm_finetune_table(summary);
  if (!finetune.rows.empty()) {
    doc.paragraph(
        "Fine-tune: each exact-ALiBi model continued with every variant on the same batches; "
        "the control continues with exact ALiBi (what more training alone gives):");
    doc.table(finetune.header, finetune.rows);
  }
}

// The family of a check: its name without the cell in brackets
// ("rate[symmetric,n=256,sigma=4] spectral" -> "rate spectral").
std::string check_family(const std::string& check) {
  std::string out;
  int depth = 0;
  for (const char c : check) {
    if (c == '[') ++depth;
    if (depth == 0 && !(c == ' ' && (out.empty() || out.back() == ' '))) out += c;
    if (c == ']' && depth > 0) --depth;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Runs one experiment (command: poslsh, its name, --config) as plan.shards
// shards through the plan's launcher, then merges them into `csv`. The shard
// tables, their sidecars and the launcher's logs stay in <out>/shards/.
// Returns the highest shard exit code, else merge's.
int run_shards(const LaunchPlan& plan, std::vector<std::string> command, const std::string& name,
               const std::string& csv, bool resume, bool no_timing, bool quiet) {
  std::error_code ec;
  fs::create_directories(plan.log_dir, ec);
  const auto shard_csv = [&](const std::string& k) {
    return (fs::path(plan.log_dir) / fmt::format("{}.{}.csv", name, k)).string();
  };
  command.insert(command.end(), {"--threads", std::to_string(plan.threads)});
  if (resume) command.push_back("--resume");  // a shard without a .partial starts afresh
  if (no_timing) command.push_back("--no-timing");
  if (quiet) command.push_back("--quiet");
  const int rc = launch_shards(plan, command, shard_csv, "poslsh-" + name);
  std::vector<std::string> merge = {command.front(), "merge", "--out", csv};
  for (int k = 1; k <= plan.shards; ++k) {
    merge.push_back(shard_csv(std::to_string(k)));
    if (!fs::exists(merge.back())) return rc != 0 ? rc : 1;  // a shard that reported success
  }
  if (rc != 0) return rc;
  return run_child(merge);
}

// What each figure shows, for its heading.
std::string figure_title(const std::string& name) {
  if (name == "convergence_error_vs_s") return "Errors of the mean of s masks against s";
  if (name == "convergence_constant_vs_n") return "The constant of the O(1/sqrt(s)) rate against n";
  if (name == "blocksize_law") return "Largest block size: law and growth";
  if (name == "attention_error_vs_s") return "Attention output error against s";
  if (name == "attention_error_vs_n") return "Attention output error against n";
  if (name == "attention_length_vs_n")
    return "Length extrapolation: attention output error against n at fixed s";
  if (name == "attention_time_vs_n") return "Attention time against n";
  if (name == "lm_loss_vs_s") return "Language models: validation loss against s";
  if (name == "lm_loss_vs_length") return "Language models: length extrapolation";
  if (name == "lm_frontier") return "Language models: loss against keys per query (equal cost)";
  if (name == "lm_learning_curves") return "Language models: learning curves";
  if (name == "lm_finetune") return "Language models: fine-tuning exact-ALiBi models";
  if (name == "lm_swapin_error_vs_s")
    return "Language models: swap-in output error against s on trained Q, K, V";
  return name;
}

// The options of `poslsh reproduce`.
struct ReproduceOptions {
  std::string out;
  int threads = 0;
  int shards = 1;
  std::string launcher = "local";
  bool resume = false, no_plots = false, quiet = false, no_timing = false;
  PlantDefectOption plant;
};

void declare_reproduce_options(CLI::App& cmd, ReproduceOptions& o) {
  cmd.add_option("--out", o.out, "Results directory (default: results/<config name>)");
  cmd.add_option("--threads", o.threads, "Worker threads per experiment (0: all cores)")
      ->capture_default_str();
  cmd.add_flag("--resume", o.resume, "Continue interrupted experiments from their .partial files");
  cmd.add_flag("--no-plots", o.no_plots, "Skip the figures (no Python needed)");
  cmd.add_flag("--quiet", o.quiet, "No progress output");
  cmd.add_flag("--no-timing", o.no_timing,
               "Experiments write their timing columns empty (tables comparable byte for byte)");
  cmd.add_option("--shards", o.shards,
                 "Run each experiment as N shards (--shard K/N) and merge them (poslsh merge)")
      ->capture_default_str();
  cmd.add_option("--launcher", o.launcher,
                 "Where shards run: local (child processes), parallel (GNU parallel), slurm "
                 "(one sbatch job array per experiment; benchmarks as one job)")
      ->capture_default_str();
  o.plant.declare(cmd);
}

// What one reproduce run does, from its validated options and config.
struct ReproducePlan {
  std::string config, toml, out;
  LaunchPlan launch;
  bool sharded = false;               // more than one shard, or a launcher other than local
  std::vector<std::string> sections;  // to run, in config order
  PlantedDefect defect;               // --plant-defect: passed to every section that draws hashes
  std::set<std::string> plantable;    // the sections whose command takes --plant-defect
};

// The launch plan of --shards, --launcher and --threads.
LaunchPlan launch_plan(const ReproduceOptions& o, const std::string& out) {
  if (o.threads < 0) throw UsageError("--threads must be an integer >= 0");
  if (o.shards < 1 || o.shards > 10000)
    throw UsageError(fmt::format("--shards must be an integer in [1, 10000] (got {})", o.shards));
  LaunchPlan plan;
  plan.launcher = parse_launcher(o.launcher);
  require_launcher(plan.launcher);
  plan.shards = o.shards;
  plan.quiet = o.quiet;
  // Shards share this machine unless SLURM places them: split its threads.
  plan.threads =
      o.threads > 0 ? o.threads
      : plan.launcher == Launcher::kSlurm
          ? 1
          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / o.shards);
  plan.log_dir = fs::absolute(fs::path(out) / "shards").string();
  return plan;
}

// Sections name what to run: [convergence] runs `poslsh convergence`,
// [bench.attention] runs `poslsh bench attention`.
std::vector<std::string> sections_to_run(const std::string& toml, const std::string& config) {
  std::set<std::string> known;
  for (const auto& e : experiments()) {
    known.insert(e.name);
    if (e.add_bench) known.insert("bench." + e.name);
  }
  std::vector<std::string> to_run;
  for (const auto& s : config_sections(toml)) {
    if (known.count(s))
      to_run.push_back(s);
    else if (s != "reproduce" && s != "sample" && s != "bench")
      throw UsageError(fmt::format("--config: section [{}] names no experiment (accepted: {})", s,
                                   fmt::join(known, ", ")));
  }
  if (to_run.empty())
    throw UsageError(fmt::format("--config '{}' has no experiment section (accepted: {})", config,
                                 fmt::join(known, ", ")));
  return to_run;
}

// Whether `poslsh <section>` has --plant-defect (benchmarks, lm and power do not).
bool takes_plant_defect(const CLI::App& top, const std::string& section) {
  for (const CLI::App* command : top.get_subcommands([](const CLI::App*) { return true; }))
    if (command->get_name() == section) return command->get_option_no_throw("--plant-defect");
  return false;
}

ReproducePlan plan_reproduce(const CLI::App& top, const ReproduceOptions& o) {
  const auto* config_opt = top.get_option("--config");
  if (config_opt->count() == 0)
    throw UsageError("reproduce needs --config FILE.toml (e.g. configs/default.toml)");
  ReproducePlan plan;
  plan.config = config_opt->as<std::string>();
  plan.toml = read_file("--config", plan.config);
  plan.out = o.out.empty() ? (fs::path("results") / fs::path(plan.config).stem()).string() : o.out;
  std::error_code ec;
  fs::create_directories(plan.out, ec);
  require_writable("--out", (fs::path(plan.out) / "report.md").string());
  plan.launch = launch_plan(o, plan.out);
  plan.sharded = o.shards > 1 || plan.launch.launcher != Launcher::kLocal;
  plan.sections = sections_to_run(plan.toml, plan.config);
  plan.defect = PlantDefectOption(o.plant).resolve();  // a copy: the options stay const
  for (const auto& section : plan.sections)
    if (takes_plant_defect(top, section)) plan.plantable.insert(section);
  return plan;
}

// One experiment (or benchmark) run by reproduce.
struct Ran {
  std::string section, csv;
  bool is_bench = false;
  int exit_code = 0;
  double seconds = 0;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs `section` as a child `poslsh` (through the launcher when sharded).
Ran run_section(const std::string& section, const ReproducePlan& plan, const ReproduceOptions& o) {
  const bool is_bench = section.rfind("bench.", 0) == 0;
  const std::string name = is_bench ? section.substr(6) : section;
  const std::string csv =
      (fs::path(plan.out) / (is_bench ? name + "_bench.csv" : name + ".csv")).string();
  const bool sharded = plan.sharded;
  std::vector<std::string> args = {self_executable()};
  if (is_bench) args.push_back("bench");
  // Absolute paths: a SLURM job may start in another directory.
  args.insert(args.end(),
              {name, "--config", sharded ? fs::absolute(plan.config).string() : plan.config});
  if (!plan.defect.sound() && plan.plantable.count(section))
    args.insert(args.end(), {"--plant-defect", plan.defect.name()});
  if (!o.quiet) std::fprintf(stderr, "== reproduce: %s -> %s\n", section.c_str(), csv.c_str());
  const auto t = std::chrono::steady_clock::now();
  int rc = 0;
  if (!sharded || is_bench) {
    args.insert(args.end(), {"--out", sharded ? fs::absolute(csv).string() : csv});
    if (o.threads || sharded)
      args.insert(args.end(),
                  {"--threads", std::to_string(sharded ? plan.launch.threads : o.threads)});
    if (!is_bench) {
      if (o.resume && (fs::exists(csv + ".partial") || fs::exists(csv))) args.push_back("--resume");
      if (o.quiet) args.push_back("--quiet");
      if (o.no_timing) args.push_back("--no-timing");
    }
    rc = sharded ? launch_one(plan.launch, args, "poslsh-" + name + "-bench") : run_child(args);
  } else {
    rc = run_shards(plan.launch, args, name, csv, o.resume, o.no_timing, o.quiet);
  }
  return {section, csv, is_bench, rc, seconds_since(t)};
}

std::vector<Ran> run_sections(const ReproducePlan& plan, const ReproduceOptions& o) {
  std::vector<Ran> ran;
  if (plan.launch.launcher == Launcher::kSlurm) {
    // The experiments are independent: every job array is submitted at once
    // and the cluster runs them side by side (a benchmark job asks for a
    // whole node, so nothing else runs beside it).
    ran.resize(plan.sections.size());
    std::vector<std::thread> submitters;
    for (std::size_t i = 0; i < plan.sections.size(); ++i)
      submitters.emplace_back([&, i] { ran[i] = run_section(plan.sections[i], plan, o); });
    for (auto& t : submitters) t.join();
    return ran;
  }
  for (const auto& section : plan.sections) {
    ran.push_back(run_section(section, plan, o));
    const int rc = ran.back().exit_code;
    if (rc == 2 || rc == 130 || rc == 143) break;
  }
  return ran;
}

// The exit code that ends reproduce before the checks (unusable input,
// interruption), or 0 to go on.
int early_exit_code(const std::vector<Ran>& ran) {
  for (const auto& r : ran) {
    if (r.exit_code == 2) return 2;  // unusable input: the child said why
    if (r.exit_code == 130 || r.exit_code == 143) {
      std::fprintf(stderr, "reproduce: interrupted; rerun with --resume to continue\n");
      return 130;
    }
  }
  return 0;
}

// Checks: every outcome goes to checks.csv; the report summarises them per
// table and family and quotes every FAIL in full.
struct CheckSummary {
  struct Family {
    std::string table, family;
    int pass = 0, fail = 0, info = 0, not_applicable = 0, warn = 0;
  };
  std::vector<Family> families;
  std::vector<std::string> failures, warnings;
  CsvWriter checks_csv{{"table", "verdict", "check", "detail"}};  // details hold commas
  std::vector<std::pair<std::string, std::string>> power_tables;  // (summary file, markdown)
  std::vector<std::pair<std::string, std::string>> bench_tables;  // (section, csv)
  int failed = 0;

  void tally(const std::string& table, const std::string& check, Verdict v,
             const std::string& detail) {
    checks_csv.row({table, verdict_name(v), check, detail});
    const std::string family = check_family(check);
    auto it = std::find_if(families.begin(), families.end(),
                           [&](const Family& f) { return f.table == table && f.family == family; });
    if (it == families.end()) it = families.insert(families.end(), {table, family});
    (v == Verdict::kFail      ? it->fail
     : v == Verdict::kPass    ? it->pass
     : v == Verdict::kInfo    ? it->info
     : v == Verdict::kWarning ? it->warn
                              : it->not_applicable)++;
    if (v == Verdict::kWarning)
      warnings.push_back(fmt::format("**{}** `{}`: {}", table, check, detail));
    if (v == Verdict::kFail) {
      ++failed;
      failures.push_back(fmt::format("**{}** `{}`: {}", table, check, detail));
    }
  }
};

CheckSummary check_tables(const std::vector<Ran>& ran) {
  CheckSummary summary;
  std::vector<std::string> sections;
  for (const auto& r : ran) sections.push_back(r.section);
  const double table_alpha = reproduce_table_alpha(sections);
  for (const auto& r : ran) {
    if (r.exit_code != 0) {
      summary.tally(r.section, "run", Verdict::kFail, fmt::format("exit code {}", r.exit_code));
      continue;
    }
    if (r.is_bench) {
      summary.bench_tables.emplace_back(r.section, r.csv);
      continue;
    }
    if (r.section == "power")
      summary.power_tables.emplace_back(fs::path(summary_path(r.csv)).filename().string(),
                                        power_report_markdown(CsvTable::read(summary_path(r.csv))));
    for (const auto& c : check_file(r.csv, table_alpha).outcomes)
      summary.tally(r.section, c.check, c.verdict, c.detail);
  }
  return summary;
}

// A figure drawn (or not) by its plot script.
struct Figure {
  std::string script, name, caption;
  int exit_code;
};

// Figures: each script writes NAME.png, .pdf, .svg and a one-line
// NAME.caption.txt (what it shows, what the theory predicts).
fs::path figure_png(const FigureScript& figure, const std::string& out) {
  return fs::path(out) / (figure.file() + ".png");
}

// The figure a finished script gave; exit code -1 when it broke its contract
// (no caption or no PNG).
Figure drawn_figure(const FigureScript& figure, const std::string& out, int rc) {
  std::string caption;
  if (rc == 0) {
    std::ifstream in(fs::path(out) / (figure.file() + ".caption.txt"));
    std::getline(in, caption);
    if (caption.empty() || !fs::exists(figure_png(figure, out))) rc = -1;
  }
  return {figure.script, figure.file(), caption, rc};
}

// The figures of the experiments that ran, in figure_scripts() order, their
// scripts run side by side (each is mostly the interpreter's start-up).
std::vector<Figure> draw_figures(const std::vector<Ran>& ran, const fs::path& plots,
                                 const std::string& out, bool quiet) {
  std::vector<const FigureScript*> scripts;
  std::vector<std::vector<std::string>> commands;
  for (const auto& figure : figure_scripts()) {
    const auto it = std::find_if(ran.begin(), ran.end(),
                                 [&](const Ran& r) { return r.section == figure.experiment; });
    if (it == ran.end() || it->exit_code != 0) continue;
    scripts.push_back(&figure);
    commands.push_back({"/usr/bin/python3", (plots / (figure.script + ".py")).string(), it->csv,
                        "-o", figure_png(figure, out).string()});
  }
  const std::vector<int> codes = run_children(commands, quiet);
  std::vector<Figure> figures;
  for (std::size_t i = 0; i < scripts.size(); ++i)
    figures.push_back(drawn_figure(*scripts[i], out, codes[i]));
  return figures;
}

// The report's opening bullets: what ran, where, how long, the verdict.
std::vector<std::string> report_header(const ReproducePlan& plan, const ReproduceOptions& o,
                                       const fs::path& plots, double seconds, int failed) {
  const LaunchPlan& launch = plan.launch;
  return {fmt::format("config: `{}`", plan.config),
          fmt::format("poslsh {} (commit `{}`)", kVersion, git_commit()),
          fmt::format("machine: {} hardware threads", std::thread::hardware_concurrency()),
          fmt::format("duration: {:.1f} s", seconds),
          plan.sharded
              ? fmt::format("execution: each experiment as {} shard{} ({}, {} "
                            "thread{} each), merged with `poslsh merge`; shard "
                            "tables and logs in [shards/](shards/)",
                            launch.shards, launch.shards == 1 ? "" : "s",
                            launch.launcher == Launcher::kSlurm      ? "a SLURM job array"
                            : launch.launcher == Launcher::kParallel ? "run by GNU parallel"
                                                                     : "local processes",
                            launch.threads, launch.threads == 1 ? "" : "s")
              : std::string("execution: one process per experiment, on this machine"),
          o.no_plots ? std::string("plots: not drawn (--no-plots)")
                     : fmt::format("plot scripts: `{}`", plots.string()),
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
    doc.heading(3, fmt::format("Figure {}: {}", i + 1, figure_title(f.name)));
    if (f.exit_code == 0)
      doc.figure(f.name + ".png", f.caption, {{"PDF", f.name + ".pdf"}, {"SVG", f.name + ".svg"}});
    else
      doc.paragraph(
          fmt::format("`plots/{}.py` failed (exit code {}): no figure.", f.script, f.exit_code));
  }
}

// The experiments table, the power tables, the lm section and the benchmarks.
void add_results_sections(ReportDocument& doc, const std::vector<Ran>& ran,
                          const CheckSummary& checks) {
  doc.heading(2, "Experiments");
  std::vector<std::vector<std::string>> run_rows;
  for (const auto& r : ran)
    run_rows.push_back({r.section, fmt::format("[{0}]({0})", fs::path(r.csv).filename().string()),
                        std::to_string(r.exit_code), fmt::format("{:.1f}", r.seconds)});
  doc.table({"experiment", "table", "exit", "seconds"}, run_rows);
  if (!checks.power_tables.empty()) {
    doc.heading(2, "What the checks detect");
    for (const auto& [summary, md] : checks.power_tables) {
      const auto [header, rows] = parse_markdown_table(md);
      doc.table(header, rows);
      doc.paragraph(fmt::format(
          "A sampler is detected by a seed when some check of the family tables built from it "
          "fails (per check: [{0}]({0})).",
          summary));
    }
  }
  if (const auto lm =
          std::find_if(ran.begin(), ran.end(),
                       [](const Ran& r) { return r.section == "lm" && r.exit_code == 0; });
      lm != ran.end())
    add_lm_section(doc, CsvTable::read(summary_path(lm->csv)),
                   fs::path(summary_path(lm->csv)).filename().string());
  if (!checks.bench_tables.empty()) {
    doc.heading(2, "Benchmarks");
    for (const auto& [section, csv] : checks.bench_tables) {
      doc.heading(3, section);
      const auto [header, rows] = report_table(csv);
      doc.table(header, rows);
    }
  }
}

// checks.csv, report.md and report.html, each written atomically.
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

  ReportDocument doc("poslsh reproduction report");
  doc.bullets(report_header(plan, o, plots, seconds_since(t0), checks.failed));
  doc.paragraph(
      "Each table's provenance (resolved options, seed, inputs' SHA-256, version) is in its "
      "`.meta.json`; `poslsh rerun TABLE.csv.meta.json --out X` runs it again. This report "
      "is also written as a self-contained `report.html`.");
  add_checks_section(doc, checks);
  add_figures_section(doc, figures, o.no_plots);
  add_results_sections(doc, ran, checks);
  doc.heading(2, "Configuration");
  doc.code(plan.toml, "toml");
  write_report_files(plan.out, checks.checks_csv, doc);
  if (!o.quiet)
    std::fprintf(stderr, "reproduce: %s (%d failed checks, %d failed plots); report: %s\n",
                 checks.failed ? "FAIL" : "PASS", checks.failed, static_cast<int>(plot_failures),
                 (fs::path(plan.out) / "report.md").c_str());
  return checks.failed || plot_failures ? 1 : 0;
}

}  // namespace reproduce_steps

std::vector<std::string> reproduce_sections(const std::string& toml, const std::string& config) {
  return reproduce_steps::sections_to_run(toml, config);
}

double reproduce_table_alpha(const std::vector<std::string>& sections) {
  // Bonferroni over the checked tables (every section but the benchmarks):
  // the report's false-alarm rate is kCheckFamilyAlpha.
  const auto checked = std::count_if(sections.begin(), sections.end(),
                                     [](const auto& s) { return s.rfind("bench.", 0) != 0; });
  return kCheckFamilyAlpha / static_cast<double>(std::max<long>(checked, 1));
}

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
