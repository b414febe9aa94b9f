#include "apps/reproduce_run.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "runner/child_process.h"

namespace poslsh::reproduce_steps {

namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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

// Runs `section` as a child `poslsh` (through the launcher when sharded).
Ran run_section(const std::string& section, const ReproducePlan& plan, const ReproduceOptions& o) {
  const bool is_bench = is_bench_section(section);
  const std::string name = section_experiment(section);
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

}  // namespace

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

}  // namespace poslsh::reproduce_steps
