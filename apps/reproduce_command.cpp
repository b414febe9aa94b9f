// `poslsh reproduce --config configs/X.toml --out results/X`: runs every
// experiment the config has a section for, checks each table, draws the
// figures and writes report.md. Exit 0: all ran and all checks pass; 1: a
// check (or a plot) failed, the report is still written; 2: unusable input.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "atomic_file.h"
#include "child_process.h"
#include "cli_common.h"
#include "commands.h"
#include "csv_table.h"
#include "power.h"
#include "sweep.h"
#include "version.h"

namespace poslsh {

namespace fs = std::filesystem;

namespace {

// Section names in a TOML file: "[convergence]" -> "convergence".
std::vector<std::string> sections(const std::string& toml) {
  std::vector<std::string> out;
  std::istringstream in(toml);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] != '[') continue;
    const auto close = line.find(']', first);
    if (close != std::string::npos) out.push_back(line.substr(first + 1, close - first - 1));
  }
  return out;
}

// The plot scripts that draw each experiment's figures (plots/<script>.py CSV -o PNG).
const std::vector<std::pair<std::string, std::string>>& figure_scripts() {
  static const std::vector<std::pair<std::string, std::string>> f = {
      {"convergence", "convergence_error_vs_s"},
      {"convergence", "convergence_constant_vs_n"},
      {"blocksize", "blocksize_law"},
      {"attention", "attention_error_vs_s"},
      {"bench.attention", "attention_time_vs_n"},
  };
  return f;
}

// A CSV as a Markdown table (benchmark tables are small).
std::string markdown_table(const std::string& csv_path) {
  const CsvTable t = CsvTable::read(csv_path);
  std::string md = "| " + fmt::format("{}", fmt::join(t.columns(), " | ")) + " |\n|";
  for (std::size_t i = 0; i < t.columns().size(); ++i) md += "---|";
  md += "\n";
  for (std::size_t r = 0; r < t.size(); ++r)
    md += "| " + fmt::format("{}", fmt::join(t.row(r), " | ")) + " |\n";
  return md;
}

}  // namespace

Action add_reproduce_command(CLI::App& app) {
  struct Options {
    std::string out;
    int threads = 0;
    bool resume = false, no_plots = false, quiet = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "reproduce",
      "Run every experiment of --config, check the tables, draw figures, write report.md");
  cmd->add_option("--out", o->out, "Results directory (default: results/<config name>)");
  cmd->add_option("--threads", o->threads, "Worker threads per experiment (0: all cores)")
      ->capture_default_str();
  cmd->add_flag("--resume", o->resume,
                "Continue interrupted experiments from their .partial files");
  cmd->add_flag("--no-plots", o->no_plots, "Skip the figures (no Python needed)");
  cmd->add_flag("--quiet", o->quiet, "No progress output");
  CLI::App* top = &app;
  return [o, top] {
    const auto* config_opt = top->get_option("--config");
    if (config_opt->count() == 0)
      throw UsageError("reproduce needs --config FILE.toml (e.g. configs/default.toml)");
    const std::string config = config_opt->as<std::string>();
    const std::string toml = read_file("--config", config);
    const std::string out =
        o->out.empty() ? (fs::path("results") / fs::path(config).stem()).string() : o->out;
    std::error_code ec;
    fs::create_directories(out, ec);
    require_writable("--out", (fs::path(out) / "report.md").string());
    if (o->threads < 0) throw UsageError("--threads must be an integer >= 0");

    // Sections name what to run: [convergence] runs `poslsh convergence`,
    // [bench.attention] runs `poslsh bench attention`.
    std::set<std::string> known;
    for (const auto& e : experiments()) {
      known.insert(e.name);
      if (e.add_bench) known.insert("bench." + e.name);
    }
    std::vector<std::string> to_run;
    for (const auto& s : sections(toml)) {
      if (known.count(s))
        to_run.push_back(s);
      else if (s != "reproduce" && s != "sample" && s != "bench")
        throw UsageError(fmt::format("--config: section [{}] names no experiment (accepted: {})", s,
                                     fmt::join(known, ", ")));
    }
    if (to_run.empty())
      throw UsageError(fmt::format("--config '{}' has no experiment section (accepted: {})", config,
                                   fmt::join(known, ", ")));

    const auto t0 = std::chrono::steady_clock::now();
    const std::string exe = self_executable();
    struct Ran {
      std::string section, csv;
      bool is_bench;
      int exit_code;
      double seconds;
    };
    std::vector<Ran> ran;
    for (const auto& section : to_run) {
      const bool is_bench = section.rfind("bench.", 0) == 0;
      const std::string name = is_bench ? section.substr(6) : section;
      const std::string csv =
          (fs::path(out) / (is_bench ? name + "_bench.csv" : name + ".csv")).string();
      std::vector<std::string> args = {exe};
      if (is_bench) args.push_back("bench");
      args.insert(args.end(), {name, "--config", config, "--out", csv});
      if (o->threads) args.insert(args.end(), {"--threads", std::to_string(o->threads)});
      if (!is_bench) {
        if (o->resume && fs::exists(csv + ".partial")) args.push_back("--resume");
        if (o->quiet) args.push_back("--quiet");
      }
      if (!o->quiet) std::fprintf(stderr, "== reproduce: %s -> %s\n", section.c_str(), csv.c_str());
      const auto t = std::chrono::steady_clock::now();
      const int rc = run_child(args);
      ran.push_back({section, csv, is_bench, rc,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count()});
      if (rc == 2) return 2;  // unusable input: the child said why
      if (rc == 130) {
        std::fprintf(stderr, "reproduce: interrupted; rerun with --resume to continue\n");
        return 130;
      }
    }

    // Checks.
    int failed = 0;
    std::string benches, power;
    std::string checks = "| table | verdict | check | numbers |\n|---|---|---|---|\n";
    // Bonferroni over the checked tables: the report's false-alarm rate is kCheckFamilyAlpha.
    const auto checked_tables =
        std::count_if(ran.begin(), ran.end(), [](const auto& r) { return !r.is_bench; });
    const double table_alpha =
        kCheckFamilyAlpha / static_cast<double>(std::max<long>(checked_tables, 1));
    for (const auto& r : ran) {
      if (r.exit_code != 0) {
        ++failed;
        checks += fmt::format("| {} | FAIL | run | exit code {} |\n", r.section, r.exit_code);
        continue;
      }
      if (r.is_bench) {
        benches += fmt::format("### {}\n\n{}\n", r.section, markdown_table(r.csv));
        continue;
      }
      if (r.section == "power")
        power += power_report_markdown(CsvTable::read(summary_path(r.csv))) +
                 "\nA sampler is detected by a seed when some check of the family tables built "
                 "from it fails (per check: `" +
                 fs::path(summary_path(r.csv)).filename().string() + "`).\n\n";
      const auto report = check_file(r.csv, table_alpha);
      for (const auto& c : report.outcomes) {
        if (c.verdict == Verdict::kFail) ++failed;
        checks += fmt::format("| {} | {} | {} | {} |\n", r.section, verdict_name(c.verdict),
                              c.check, c.detail);
      }
    }

    // Figures.
    std::string figures;
    int plot_failures = 0;
    if (!o->no_plots) {
      for (const auto& figure : figure_scripts()) {
        // (Not a structured binding: clang before 16 cannot capture one in a lambda.)
        const std::string &experiment = figure.first, &script = figure.second;
        const auto it = std::find_if(ran.begin(), ran.end(),
                                     [&](const Ran& r) { return r.section == experiment; });
        if (it == ran.end() || it->exit_code != 0) continue;
        const fs::path py = fs::path(POSLSH_SOURCE_DIR) / "plots" / (script + ".py");
        const std::string png = (fs::path(out) / (script + ".png")).string();
        const int rc = run_child({"/usr/bin/python3", py.string(), it->csv, "-o", png});
        if (rc == 0) {
          figures += fmt::format("### {}\n\n![{}]({}.png)\n\n", script, script, script);
        } else {
          ++plot_failures;
          figures += fmt::format("### {}\n\nplot failed (exit code {})\n\n", script, rc);
        }
      }
    }

    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string experiments_table = "| experiment | CSV | exit | seconds |\n|---|---|---|---|\n";
    for (const auto& r : ran)
      experiments_table += fmt::format("| {} | {} | {} | {:.1f} |\n", r.section,
                                       fs::path(r.csv).filename().string(), r.exit_code, r.seconds);
    AtomicFile report((fs::path(out) / "report.md").string(), "--out");
    report.write(fmt::format(
        "# poslsh reproduction report\n\n"
        "- config: `{}`\n- poslsh {} (commit {})\n- machine: {} hardware threads\n"
        "- duration: {:.1f} s\n- verdict: **{}**\n\n"
        "Provenance of each table (resolved config, seed, duration) is in its `.meta.json`.\n\n"
        "## Configuration\n\n```toml\n{}```\n\n## Experiments\n\n{}\n## Checks\n\n{}\n## "
        "What the checks detect\n\n{}\n## Benchmarks\n\n{}\n## Figures\n\n{}",
        config, kVersion, git_commit(), std::thread::hardware_concurrency(), seconds,
        failed ? "some checks FAILED" : "all checks passed", toml, experiments_table, checks,
        power.empty() ? "(no [power] section)\n" : power, benches.empty() ? "(none)\n" : benches,
        figures.empty() ? "(none)\n" : figures));
    report.commit();
    if (!o->quiet)
      std::fprintf(stderr, "reproduce: %s (%d failed checks, %d failed plots); report: %s\n",
                   failed ? "FAIL" : "PASS", failed, plot_failures,
                   (fs::path(out) / "report.md").c_str());
    return failed || plot_failures ? 1 : 0;
  };
}

}  // namespace poslsh
