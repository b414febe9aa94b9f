// Long-sweep guarantees end to end, through the real CLI: a run killed by
// SIGKILL or stopped by SIGINT resumes to the same bytes as an uninterrupted
// run; shards merge to the single-run bytes; reproduce writes its report and
// maps outcomes to exit codes.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "cli_harness.h"
#include "runner/csv_table.h"

extern char** environ;

namespace poslsh {
namespace {

namespace fs = std::filesystem;
using Pipeline = testing::CliTest;

// ~100 cells of a few milliseconds each: long enough to interrupt mid-run.
const std::string kSweep =
    "convergence --n 4096 --sigma 4 16 --s 1 2 4 8 16 32 64 128 256 --trials 6 --no-timing ";

pid_t start(const std::string& args, const std::string& err_file) {
  const std::string cmd = "exec " + std::string(POSLSH_CLI) + " " + args + " 2>" + err_file;
  const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Waits until the partial file holds at least `records` finished cells.
bool wait_for_records(const std::string& partial, int records) {
  for (int i = 0; i < 3000; ++i) {
    const std::string text = testing::slurp(partial);
    int found = 0;
    for (std::size_t at = text.find("#end "); at != std::string::npos;
         at = text.find("#end ", at + 1))
      ++found;
    if (found >= records) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

class Interrupted : public Pipeline, public ::testing::WithParamInterface<int> {};

TEST_P(Interrupted, ResumeGivesTheUninterruptedBytes) {
  const int sig = GetParam();
  ASSERT_EQ(cli(kSweep + "--threads 1 --quiet --out " + path("whole.csv")).exit_code, 0);

  const std::string out = path("run.csv");
  const pid_t pid = start(kSweep + "--threads 2 --out " + out, path("err.txt"));
  ASSERT_TRUE(wait_for_records(out + ".partial", 3));
  kill(pid, sig);
  const int rc = wait_exit(pid);
  ASSERT_FALSE(fs::exists(out)) << "interrupted before the end, the target must not exist (rc "
                                << rc << ")";
  ASSERT_TRUE(fs::exists(out + ".partial"));
  if (sig != SIGKILL) {
    // SIGTERM is what a scheduler sends (scancel, preemption, a time limit).
    EXPECT_EQ(rc, 128 + sig);
    const std::string err = testing::slurp(path("err.txt"));
    EXPECT_NE(err.find("--resume"), std::string::npos) << "a stopped run must say how to resume";
    EXPECT_NE(err.find(sig == SIGINT ? "by SIGINT" : "by SIGTERM"), std::string::npos) << err;
  } else {
    EXPECT_EQ(rc, 128 + SIGKILL);
  }
  const auto resumed = cli(kSweep + "--threads 2 --resume --out " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming"), std::string::npos) << resumed.err;
  EXPECT_EQ(testing::slurp(out), testing::slurp(path("whole.csv")));
  EXPECT_FALSE(fs::exists(out + ".partial"));
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupted, ::testing::Values(SIGINT, SIGTERM, SIGKILL),
                         [](const auto& info) {
                           return info.param == SIGINT    ? "SIGINT"
                                  : info.param == SIGTERM ? "SIGTERM"
                                                          : "SIGKILL";
                         });

TEST_F(Pipeline, ShardsMergeToTheSingleRunBytes) {
  const std::string sweep =
      "blocksize --n 64 4096 --sigma 2 16 --s 1 8 --trials 50 --seed 4 --quiet ";
  ASSERT_EQ(cli(sweep + "--out " + path("whole.csv")).exit_code, 0);
  std::string shards;
  for (int k = 1; k <= 3; ++k) {
    const std::string part = path("part" + std::to_string(k) + ".csv");
    ASSERT_EQ(cli(sweep + "--shard " + std::to_string(k) + "/3 --out " + part).exit_code, 0);
    shards += " " + part;
  }
  // Given in any order.
  const auto merged = cli("merge --out " + path("merged.csv") + " " + path("part3.csv") + " " +
                          path("part1.csv") + " " + path("part2.csv"));
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(testing::slurp(path("merged.csv")), testing::slurp(path("whole.csv")));
  EXPECT_TRUE(fs::exists(path("merged.csv.meta.json")));
  // The summary a single blocksize run writes beside its table, recomputed by
  // merge from the merged table (each shard's own summary covers its slice only).
  ASSERT_TRUE(fs::exists(path("merged.summary.csv")));
  EXPECT_EQ(testing::slurp(path("merged.summary.csv")), testing::slurp(path("whole.summary.csv")));
  EXPECT_NE(testing::slurp(path("part1.summary.csv")), testing::slurp(path("whole.summary.csv")));
  // The merged table is the finished run for --resume (what `reproduce
  // --resume` runs before its report): nothing is recomputed or rewritten.
  const std::string merged_meta = testing::slurp(path("merged.csv.meta.json"));
  const auto resumed = cli(sweep.substr(0, sweep.find("--quiet")) + "--resume --out " + path("merged.csv"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("already complete"), std::string::npos) << resumed.err;
  EXPECT_EQ(testing::slurp(path("merged.csv.meta.json")), merged_meta);

  // A missing shard, or a shard of another sweep, is refused.
  expect_usage_error(
      "merge --out " + path("bad.csv") + " " + path("part1.csv") + " " + path("part2.csv"),
      "shards");
  ASSERT_EQ(cli("blocksize --n 64 --sigma 2 --s 1 --trials 50 --seed 5 --quiet --shard 2/3 --out " +
                path("other.csv"))
                .exit_code,
            0);
  expect_usage_error("merge --out " + path("bad.csv") + " " + path("part1.csv") + " " +
                         path("other.csv") + " " + path("part3.csv"),
                     "different sweep");
  // A shard without its timing columns is another sweep's too.
  ASSERT_EQ(cli(sweep + "--shard 2/3 --no-timing --out " + path("untimed.csv")).exit_code, 0);
  expect_usage_error("merge --out " + path("bad.csv") + " " + path("part1.csv") + " " +
                         path("untimed.csv") + " " + path("part3.csv"),
                     "different sweep");
  EXPECT_FALSE(fs::exists(path("bad.csv")));
}

// --resume on a run that already finished has nothing to do: a recipe rerun
// after one shard was interrupted must not recompute the finished shards.
TEST_F(Pipeline, ResumeOfAFinishedRunDoesNothing) {
  const std::string sweep = "blocksize --n 64 4096 --sigma 2 16 --s 1 8 --trials 50 --seed 4 ";
  const std::string out = path("b.csv");
  ASSERT_EQ(cli(sweep + "--shard 2/3 --out " + out).exit_code, 0);
  const std::string table = testing::slurp(out), meta = testing::slurp(out + ".meta.json");
  const auto again = cli(sweep + "--shard 2/3 --resume --out " + out);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("already complete"), std::string::npos) << again.err;
  EXPECT_EQ(testing::slurp(out + ".meta.json"), meta) << "nothing may be rewritten";
  // Anything that makes the file another sweep's, or not the recorded bytes,
  // means the sweep runs: another shard, other options, an edited table.
  for (const std::string& args :
       {sweep + "--shard 3/3", sweep + "--shard 2/3 --no-timing",
        std::string(
            "blocksize --n 64 4096 --sigma 2 16 --s 1 8 --trials 51 --seed 4 --shard 2/3")}) {
    const auto r = cli(args + " --resume --out " + out);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find("already complete"), std::string::npos) << args;
    ASSERT_EQ(cli(sweep + "--shard 2/3 --out " + out).exit_code, 0);
  }
  std::ofstream(out, std::ios::app) << "1,2,3\n";
  const auto edited = cli(sweep + "--shard 2/3 --resume --out " + out);
  ASSERT_EQ(edited.exit_code, 0) << edited.err;
  EXPECT_EQ(edited.err.find("already complete"), std::string::npos);
  EXPECT_EQ(testing::slurp(out), table);
}

TEST_F(Pipeline, MetaJsonCarriesProvenance) {
  ASSERT_EQ(
      cli("blocksize --n 64 --sigma 2 --s 1 --trials 5 --seed 11 --quiet --out " + path("b.csv"))
          .exit_code,
      0);
  const std::string meta = testing::slurp(path("b.csv.meta.json"));
  for (const char* key :
       {"\"version\"", "\"git_commit\"", "\"experiment\": \"blocksize\"", "\"seed\": 11",
        "\"config\"", "\"duration_seconds_this_run\"", "\"machine\""})
    EXPECT_NE(meta.find(key), std::string::npos) << key << "\n" << meta;
  // The CSV itself stays plain: header plus rows, nothing else.
  const CsvTable t = CsvTable::read(path("b.csv"));
  EXPECT_EQ(t.size(), 5u);
}

TEST_F(Pipeline, ReproduceWritesReportAndMapsExitCodes) {
  std::ofstream(path("ok.toml")) << "[blocksize]\nn = [4096]\nsigma = [2]\ns = [1, 8]\n"
                                    "trials = 200\nseed = 3\n";
  const auto ok =
      cli("reproduce --config " + path("ok.toml") + " --out " + path("r") + " --no-plots --quiet");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  const std::string report = testing::slurp(path("r/report.md"));
  EXPECT_NE(report.find("all checks passed"), std::string::npos) << report;
  EXPECT_NE(report.find("| blocksize | bound | 1 | 0 |"), std::string::npos) << report;
  EXPECT_TRUE(fs::exists(path("r/blocksize.csv")));

  // Unusable input: exit 2 and no report.
  std::ofstream(path("bad.toml")) << "[blocksize]\nn = [0]\nsigma = [2]\ns = [1]\n";
  EXPECT_EQ(
      cli("reproduce --config " + path("bad.toml") + " --out " + path("b") + " --quiet").exit_code,
      2);
  EXPECT_FALSE(fs::exists(path("b/report.md")));
  std::ofstream(path("none.toml")) << "[nosuchexperiment]\nx = 1\n";
  expect_usage_error("reproduce --config " + path("none.toml") + " --out " + path("c"),
                     "nosuchexperiment");
  expect_usage_error("reproduce --out " + path("c"), "--config");
}

// A [power] section becomes the report's "What the checks detect" table, and an
// [unbiasedness] section is checked like every experiment.
TEST_F(Pipeline, ReproduceEmbedsThePowerTable) {
  std::ofstream(path("p.toml"))
      << "[unbiasedness]\nn = [2048]\nsigma = [4]\nhashes = 32768\n"
         "[power]\nseeds = 2\ndefects = [\"sound\", \"pitch-x1.05\"]\n"
         "unbiasedness-n = [2048]\nunbiasedness-sigma = [4]\nunbiasedness-hashes = 65536\n";
  const auto r =
      cli("reproduce --config " + path("p.toml") + " --out " + path("r") + " --no-plots --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string report = testing::slurp(path("r/report.md"));
  const auto section = report.find("## What the checks detect");
  ASSERT_NE(section, std::string::npos) << report;
  EXPECT_NE(report.find("| pitch-x1.05 | 2 | 1.0000 |", section), std::string::npos) << report;
  EXPECT_NE(report.find("| sound | 2 | 0.0000 |", section), std::string::npos) << report;
  // Every check line is in checks.csv; the report counts them per family.
  const std::string checks = testing::slurp(path("r/checks.csv"));
  EXPECT_NE(checks.find("unbiasedness,PASS,\"cobin-scale[n=2048,sigma=4,middle]\""),
            std::string::npos)
      << checks;
  // Two seeds neither show nor refute a rate: the power lines are info.
  EXPECT_NE(checks.find("power,info,power[pitch-x1.05],"), std::string::npos) << checks;
  EXPECT_NE(report.find("| power | power | 0 | 0 | 1 | 0 |"), std::string::npos) << report;
  EXPECT_NE(report.find("| power | false-alarm | 0 | 0 | 1 | 0 |"), std::string::npos) << report;
  EXPECT_LT(report.find("## Checks"), report.find("## What the checks detect")) << report;
}

}  // namespace
}  // namespace poslsh

namespace poslsh {
namespace {

// `reproduce --shards N --launcher L` runs each experiment as N shards and
// merges them: every table, summary and check line is the single run's.
// (SLURM's launcher is exercised on a throwaway cluster by scripts/cluster-test.)
class ShardedReproduceCli : public Pipeline, public ::testing::WithParamInterface<std::string> {};

TEST_P(ShardedReproduceCli, GivesTheSingleRunTablesAndChecks) {
  const std::string launcher = GetParam();
  if (launcher == "parallel" && std::system("command -v parallel >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "GNU parallel is not installed (scripts/deps --test installs it)";
  std::ofstream(path("s.toml"))
      << "[convergence]\nn = [1024]\nsigma = [4, 16]\ns = [1, 4, 16]\ntrials = 2\nseed = 3\n"
         "[blocksize]\nn = [1024, 65536]\nsigma = [4, 16]\ns = [1, 8]\ntrials = 100\nseed = 5\n"
         "[power]\nseeds = 3\ndefects = [\"sound\", \"pitch-x1.05\"]\n"
         "unbiasedness-n = [2048]\nunbiasedness-sigma = [4]\nunbiasedness-hashes = 32768\n";
  const std::string common = "reproduce --config " + path("s.toml") + " --no-plots --quiet ";
  const auto whole = cli(common + "--no-timing --out " + path("whole"));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const auto sharded =
      cli(common + "--no-timing --shards 3 --launcher " + launcher + " --out " + path("sharded"));
  ASSERT_EQ(sharded.exit_code, 0) << sharded.err;
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(path("whole"))) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".csv") continue;
    EXPECT_EQ(testing::slurp(path("sharded/" + name)), testing::slurp(entry.path().string()))
        << name << " differs between the single run and the sharded one";
    ++compared;
  }
  // convergence, blocksize (+ summary), power (+ summary), checks.csv
  EXPECT_EQ(compared, 6);
  EXPECT_TRUE(fs::exists(path("sharded/shards/convergence.3.csv")));
  EXPECT_FALSE(fs::exists(path("sharded/shards/convergence.4.csv")));
  EXPECT_NE(testing::slurp(path("sharded/report.md")).find("each experiment as 3 shards"),
            std::string::npos);
  // Timing columns are written unless --no-timing: the tables then differ.
  ASSERT_EQ(cli(common + "--shards 2 --launcher " + launcher + " --out " + path("timed")).exit_code,
            0);
  EXPECT_NE(testing::slurp(path("timed/convergence.csv")),
            testing::slurp(path("whole/convergence.csv")));
}

INSTANTIATE_TEST_SUITE_P(Launchers, ShardedReproduceCli, ::testing::Values("local", "parallel"),
                         [](const auto& info) { return info.param; });

TEST_F(Pipeline, ReproduceRefusesBadShardOptions) {
  std::ofstream(path("ok.toml")) << "[blocksize]\nn = [4096]\nsigma = [2]\ns = [1]\n";
  const std::string common = "reproduce --config " + path("ok.toml") + " --out " + path("r") + " ";
  expect_usage_error(common + "--shards 0", "--shards must be an integer in [1, 10000]");
  expect_usage_error(common + "--shards 4 --launcher pbs",
                     "--launcher accepts local, parallel, slurm");
  // A launcher whose program is missing is refused before anything runs.
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", path("empty-path").c_str(), 1);
  const auto slurm = cli(common + "--shards 2 --launcher slurm");
  const auto parallel = cli(common + "--shards 2 --launcher parallel");
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(slurm.exit_code, 2) << slurm.err;
  EXPECT_NE(slurm.err.find("--launcher slurm needs sbatch"), std::string::npos) << slurm.err;
  EXPECT_EQ(parallel.exit_code, 2) << parallel.err;
  EXPECT_NE(parallel.err.find("--launcher parallel needs GNU parallel"), std::string::npos)
      << parallel.err;
  EXPECT_FALSE(fs::exists(path("r/blocksize.csv")));
}

}  // namespace
}  // namespace poslsh
