#include "apps/launcher.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "internal/printable.h"
#include "runner/child_process.h"
#include "runner/cli_common.h"

namespace poslsh {

namespace {

// The highest exit code in GNU parallel's --joblog (tab-separated, a header
// line, then Seq Host Starttime JobRuntime Send Receive Exitval Signal Command);
// a job killed by a signal counts as 128 + signal. 127 when the log is missing
// or has fewer lines than jobs (a job that never ran).
int joblog_worst_exit(const std::string& path, int jobs) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return 127;
  int worst = 0, seen = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, '\t');) fields.push_back(f);
    if (fields.size() < 8) return 127;
    const int exit_value = std::atoi(fields[6].c_str()), signal = std::atoi(fields[7].c_str());
    worst = std::max(worst, signal != 0 ? 128 + signal : exit_value);
    ++seen;
  }
  return seen < jobs ? 127 : worst;
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

std::vector<std::string> sbatch_args(const LaunchPlan& plan, const std::string& job_name,
                                     const std::string& log_name) {
  std::vector<std::string> args = {
      "sbatch", "--wait", "--job-name=" + job_name, fmt::format("--cpus-per-task={}", plan.threads),
      "--output=" + (std::filesystem::path(plan.log_dir) / log_name).string()};
  if (plan.quiet) args.push_back("--quiet");
  return args;
}

}  // namespace

Launcher parse_launcher(const std::string& name) {
  if (name == "local") return Launcher::kLocal;
  if (name == "parallel") return Launcher::kParallel;
  if (name == "slurm") return Launcher::kSlurm;
  throw UsageError(
      fmt::format("--launcher accepts local, parallel, slurm (got '{}')", detail::printable(name)));
}

const char* launcher_name(Launcher launcher) {
  switch (launcher) {
    case Launcher::kParallel:
      return "parallel";
    case Launcher::kSlurm:
      return "slurm";
    case Launcher::kLocal:
      break;
  }
  return "local";
}

void require_launcher(Launcher launcher) {
  if (launcher == Launcher::kParallel && !on_path("parallel"))
    throw UsageError(
        "--launcher parallel needs GNU parallel on PATH (Debian package 'parallel'); none found");
  if (launcher == Launcher::kSlurm && !on_path("sbatch"))
    throw UsageError(
        "--launcher slurm needs sbatch (a SLURM client) on PATH; none found. Run reproduce on "
        "a node that can submit jobs");
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int launch_shards(const LaunchPlan& plan, const std::vector<std::string>& command,
                  const std::function<std::string(const std::string& k)>& shard_out,
                  const std::string& job_name) {
  const std::string count = std::to_string(plan.shards);
  switch (plan.launcher) {
    case Launcher::kLocal: {
      std::vector<std::vector<std::string>> jobs;
      for (int k = 1; k <= plan.shards; ++k) {
        jobs.push_back(command);
        jobs.back().insert(jobs.back().end(), {"--shard", fmt::format("{}/{}", k, count), "--out",
                                               shard_out(std::to_string(k))});
      }
      const auto codes = run_children(jobs, plan.quiet);
      return *std::max_element(codes.begin(), codes.end());
    }
    case Launcher::kParallel: {
      // -q quotes every word (paths with spaces survive); --halt never runs
      // every shard even when one fails; --line-buffer shows progress live.
      const std::string joblog =
          (std::filesystem::path(plan.log_dir) / (job_name + ".joblog")).string();
      std::filesystem::remove(joblog);
      std::vector<std::string> args = {"parallel", "--will-cite", "-q",  "--line-buffer", "--halt",
                                       "never",    "-j",          count, "--joblog",      joblog};
      args.insert(args.end(), command.begin(), command.end());
      args.insert(args.end(), {"--shard", "{}/" + count, "--out", shard_out("{}"), ":::"});
      for (int k = 1; k <= plan.shards; ++k) args.push_back(std::to_string(k));
      if (run_child(args, plan.quiet) == 127) return 127;
      return joblog_worst_exit(joblog, plan.shards);
    }
    case Launcher::kSlurm: {
      // One array task per shard; the task id is the shard index. The command
      // is quoted for the batch shell, the task id left for it to expand.
      const std::string marker = "@TASK@";
      const std::string out = shell_quote(shard_out(marker));
      const auto at = out.find(marker);
      const std::string out_words =
          out.substr(0, at) + "'\"$SLURM_ARRAY_TASK_ID\"'" + out.substr(at + marker.size());
      const std::string wrap = fmt::format("exec {} --shard \"$SLURM_ARRAY_TASK_ID\"/{} --out {}",
                                           shell_words(command), count, out_words);
      auto args = sbatch_args(plan, job_name, job_name + "-%A_%a.log");
      args.insert(args.end(), {fmt::format("--array=1-{}", count), "--wrap", wrap});
      return run_child(args, plan.quiet);
    }
  }
  return 127;
}

int launch_one(const LaunchPlan& plan, const std::vector<std::string>& command,
               const std::string& job_name) {
  if (plan.launcher != Launcher::kSlurm) return run_child(command);
  auto args = sbatch_args(plan, job_name, job_name + "-%j.log");
  args.insert(args.end(), {"--exclusive", "--wrap", "exec " + shell_words(command)});
  return run_child(args, plan.quiet);
}

}  // namespace poslsh
