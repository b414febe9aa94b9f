// Where `reproduce --shards N --launcher L` runs a sweep's shards: as local
// processes, through GNU parallel, or as one SLURM job array per sweep. Each
// shard is `poslsh <experiment> ... --shard K/N --out <dir>/<name>.K.csv`, the
// same command docs/cluster.md's recipes run by hand, so what a launcher adds is
// only where and when the shards run, never what they compute.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace poslsh {

enum class Launcher { kLocal, kParallel, kSlurm };

// "local", "parallel", "slurm"; anything else is a UsageError naming --launcher.
Launcher parse_launcher(const std::string& name);
const char* launcher_name(Launcher launcher);

// Throws UsageError unless the launcher's program (parallel, sbatch) is on PATH.
void require_launcher(Launcher launcher);

// `text` as one word for /bin/sh: 'text', with each ' written '\''.
std::string shell_quote(const std::string& text);

struct LaunchPlan {
  Launcher launcher = Launcher::kLocal;
  int shards = 1;
  // Threads of each shard; SLURM jobs ask for as many CPUs per task.
  int threads = 1;
  // Where SLURM writes each task's log (<name>-<job>_<task>.log) and GNU
  // parallel its job log.
  std::string log_dir;
  bool quiet = false;
};

// Runs command + {"--shard", "K/N", "--out", shard_out(K)} for K = 1..N
// through the plan's launcher and waits for all of them. Returns the highest
// exit code of the shards (SLURM: of the array's tasks, as `sbatch --wait`
// reports it), 127 when the launcher could not start.
int launch_shards(const LaunchPlan& plan, const std::vector<std::string>& command,
                  const std::function<std::string(const std::string& k)>& shard_out,
                  const std::string& job_name);

// Runs one command where the plan's shards run: a single SLURM job on a
// whole node (--exclusive: a benchmark never runs on the submitting node nor
// beside other jobs), else here with its output passing through. Returns its
// exit code.
int launch_one(const LaunchPlan& plan, const std::vector<std::string>& command,
               const std::string& job_name);

}  // namespace poslsh
