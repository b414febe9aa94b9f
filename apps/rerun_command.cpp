// `poslsh rerun FILE.meta.json --out X`: runs again what a sidecar records
// (the experiment, its resolved options, its shard), after proving that every
// input file it names still has the recorded SHA-256. With --no-timing on both
// runs the table is the same bytes.
#include <fmt/format.h>
#include <poslsh/input_error.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <sstream>

#include "commands.h"
#include "experiments/experiment.h"
#include "internal/printable.h"
#include "runner/atomic_file.h"
#include "runner/child_process.h"
#include "runner/cli_common.h"
#include "runner/run_record.h"
#include "runner/sha256.h"
#include "runner/version.h"

namespace poslsh {

// A named namespace, not an anonymous one: the runner is a unity build.
namespace rerun_steps {

// Experiments whose sidecars rerun can replay: the sweeps, and `sample`.
bool is_sweep_experiment(const std::string& name) {
  for (const auto& e : experiments())
    if (e.name == name && e.add_command) return true;
  return false;
}

// Every "# input PATH sha256 HEX (...)" line of a recorded config: the file
// must still hold the bytes the run read.
void verify_inputs(const std::string& config, const std::string& sidecar) {
  std::istringstream in(config);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# input ", 0) != 0) continue;
    const auto tag = line.rfind(" sha256 ");
    if (tag == std::string::npos || tag < 8)
      throw InputError(fmt::format("rerun: '{}' has a malformed input line: '{}'",
                                   detail::printable(sidecar, 200), detail::printable(line, 200)));
    const std::string path = line.substr(8, tag - 8);
    const std::string want = line.substr(tag + 8, 64);
    const std::string got = sha256_file(path, "rerun");
    if (got != want)
      throw InputError(fmt::format(
          "rerun: input '{}' changed since the run (sha256 recorded {}, now {}); restore it or "
          "run the experiment afresh",
          detail::printable(path, 200), detail::printable(want, 64), got));
  }
}

struct RerunOptions {
  std::string sidecar, out;
  bool no_timing = false, quiet = false;
  int threads = 0;
};

// The sidecar, refused unless poslsh wrote it for one run that rerun can replay.
RunRecord read_replayable(const std::string& sidecar) {
  RunRecord meta = RunRecord::read(sidecar, "rerun");
  if (meta.text("tool") != "poslsh")
    throw InputError(fmt::format("rerun: '{}' was not written by poslsh", detail::printable(sidecar, 200)));
  const std::string experiment = meta.text("experiment");
  if (!is_sweep_experiment(experiment) && experiment != "sample")
    throw InputError(
        fmt::format("rerun: '{}' records experiment '{}', which rerun cannot replay (accepted: the "
                    "experiments of `poslsh --help`, and sample)",
                    detail::printable(sidecar, 200), detail::printable(experiment)));
  if (meta.has("merged_from"))
    throw InputError(fmt::format(
        "rerun: '{}' describes a merge of shards; rerun the experiment without --shard, or "
        "rerun each shard's sidecar",
        detail::printable(sidecar, 200)));
  return meta;
}

// The command line that replays `meta` from the config file `toml`.
std::vector<std::string> replay_command(const RunRecord& meta, const std::string& toml,
                                        const RerunOptions& o) {
  const std::string experiment = meta.text("experiment");
  std::vector<std::string> args = {self_executable(), experiment, "--config", toml, "--out", o.out};
  if (is_sweep_experiment(experiment)) {
    const std::string shard = meta.text("shard");
    if (shard != "1/1") args.insert(args.end(), {"--shard", shard});
    if (o.no_timing) args.push_back("--no-timing");
    if (o.quiet) args.push_back("--quiet");
    if (o.threads > 0) args.insert(args.end(), {"--threads", std::to_string(o.threads)});
  }
  return args;
}

int rerun(const RerunOptions& o) {
  require_at_least("--threads", o.threads, 0);
  const RunRecord meta = read_replayable(o.sidecar);
  const std::string config = meta.text("config");
  verify_inputs(config, o.sidecar);
  require_writable("--out", o.out);
  const std::string version = meta.text("version");
  const std::string commit = meta.text("git_commit");
  if ((version != kVersion || commit != git_commit()) && !o.quiet)
    std::fprintf(stderr,
                 "rerun: note: the run was made by poslsh %s (%s), this is %s (%s); a "
                 "different version may give different bytes\n",
                 detail::printable(version).c_str(), detail::printable(commit).c_str(), kVersion, git_commit());
  // The recorded options, as the config file the experiment reads.
  const auto toml =
      std::filesystem::temp_directory_path() / fmt::format("poslsh-rerun-{}.toml", ::getpid());
  {
    AtomicFile file(toml.string(), "rerun (temporary config)");
    file.write(fmt::format("[{}]\n{}", meta.text("experiment"), config));
    file.commit();
  }
  const int rc = run_child(replay_command(meta, toml.string(), o));
  std::filesystem::remove(toml);
  return rc;
}

}  // namespace rerun_steps

Action add_rerun_command(CLI::App& app) {
  auto o = std::make_shared<rerun_steps::RerunOptions>();
  auto* cmd = app.add_subcommand(
      "rerun",
      "Run again what a .meta.json sidecar records (same experiment, options, seed and shard; "
      "inputs checked by SHA-256)");
  cmd->add_option("sidecar", o->sidecar, "The FILE.csv.meta.json of the run to repeat")->required();
  cmd->add_option("--out", o->out, "Output CSV of the repeat (written atomically)")->required();
  cmd->add_flag("--no-timing", o->no_timing,
                "Leave timing columns empty (use on both runs for byte-identical tables)");
  cmd->add_flag("--quiet", o->quiet, "No progress on stderr");
  cmd->add_option("--threads", o->threads,
                  "Worker threads (0 = all cores; results do not depend on it)");
  return [o] { return rerun_steps::rerun(*o); };
}

}  // namespace poslsh
