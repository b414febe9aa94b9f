#include "apps/reproduce_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <string_view>
#include <thread>

#include "apps/commands.h"
#include "experiments/checks/check_outcome.h"
#include "experiments/experiment.h"
#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/config_syntax.h"

namespace poslsh {

namespace fs = std::filesystem;

namespace reproduce_steps {

void declare_reproduce_options(CLI::App& cmd, ReproduceOptions& o) {
  cmd.add_option("--out", o.out, "Results directory (default: results/<config name>)");
  cmd.add_option("--threads", o.threads, "Worker threads per experiment (0: all cores)")
      ->capture_default_str();
  cmd.add_flag("--resume", o.resume, "Continue interrupted experiments from their .partial files");
  cmd.add_flag("--no-plots", o.no_plots, "Skip the figures (no Python needed)");
  cmd.add_flag("--quiet", o.quiet, "No progress output");
  cmd.add_flag("--strict", o.strict,
               "Exit 5 when a theorem family of a table has lines that could not decide and "
               "none that did (config: strict = true under [reproduce])");
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

namespace {
constexpr std::string_view kBenchPrefix = "bench.";
}  // namespace

bool is_bench_section(const std::string& section) { return section.starts_with(kBenchPrefix); }

std::string section_experiment(const std::string& section) {
  return is_bench_section(section) ? section.substr(kBenchPrefix.size()) : section;
}

namespace {

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

// Whether `poslsh <section>` has --plant-defect (benchmarks, lm and power do not).
bool takes_plant_defect(const CLI::App& top, const std::string& section) {
  for (const CLI::App* command : top.get_subcommands([](const CLI::App*) { return true; }))
    if (command->get_name() == section) return command->get_option_no_throw("--plant-defect");
  return false;
}

}  // namespace

std::vector<std::string> sections_to_run(const std::string& toml, const std::string& config) {
  std::set<std::string> known;
  for (const auto& e : experiments()) {
    known.insert(e.name);
    if (e.add_bench) known.insert(std::string(kBenchPrefix) + e.name);
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

ReproducePlan plan_reproduce(const CLI::App& top, const ReproduceOptions& o) {
  const auto* config_opt = top.get_option("--config");
  if (config_opt->count() == 0)
    throw UsageError("reproduce needs --config FILE.toml (e.g. configs/default.toml)");
  ReproducePlan plan;
  plan.config = config_opt->as<std::string>();
  plan.toml = read_file("--config", plan.config);
  plan.out = o.out.empty() ? (fs::path("results") / fs::path(plan.config).stem()).string() : o.out;
  if (is_stream_output(plan.out))
    throw UsageError(fmt::format(
        "--out '{}' is not a folder: reproduce writes a folder of tables, figures and a report "
        "(standard output and streams take one table: poslsh <experiment> --out -)",
        plan.out));
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

}  // namespace reproduce_steps

std::vector<std::string> reproduce_sections(const std::string& toml, const std::string& config) {
  return reproduce_steps::sections_to_run(toml, config);
}

double reproduce_table_alpha(const std::vector<std::string>& sections) {
  // Bonferroni over the checked tables (every section but the benchmarks):
  // the report's false-alarm rate is kCheckFamilyAlpha.
  const auto checked = std::count_if(sections.begin(), sections.end(), [](const auto& s) {
    return !reproduce_steps::is_bench_section(s);
  });
  return kCheckFamilyAlpha / static_cast<double>(std::max<long>(checked, 1));
}

}  // namespace poslsh
