// Every table and sidecar poslsh writes, byte for byte against the outputs of
// the writers they replaced (tests/data/golden/: written by poslsh at commit
// fc8d690 with --no-timing --threads 1; see tests/data/golden/README).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_harness.h"
#include "golden_outputs.h"

namespace poslsh {
namespace {

namespace fs = std::filesystem;

class GoldenOutputsCli : public testing::CliTest {
 protected:
  // `poslsh reproduce` of tiny.toml into DIR with options; expects success.
  void reproduce(const std::string& dir, const std::string& options = "") const {
    const auto r = cli("reproduce --config " + (golden_dir() / "tiny.toml").string() + " --out " +
                       path(dir) + " --no-plots --no-timing --threads 1 --quiet " + options);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // Each golden FILE of `golden` against DIR/FILE: tables byte for byte
  // (benches' timing columns blanked in both), sidecars as expect_same_sidecar.
  void expect_golden(const fs::path& golden, const std::string& dir, bool tables) const {
    int compared = 0;
    for (const auto& entry : fs::directory_iterator(golden)) {
      if (entry.is_directory()) continue;
      const std::string name = entry.path().filename().string();
      const std::string produced = path(dir + "/" + name);
      SCOPED_TRACE(name);
      ASSERT_TRUE(fs::exists(produced));
      ++compared;
      if (name.ends_with(".meta.json")) {
        expect_same_sidecar(entry.path().string(), produced);
      } else if (tables) {
        const std::set<std::string> timing = {"seconds", "seconds_per_hash", "gflops"};
        EXPECT_EQ(blank_columns(testing::slurp(produced), timing),
                  blank_columns(testing::slurp(entry.path()), timing));
      }
    }
    EXPECT_GE(compared, 2);
  }
};

TEST_F(GoldenOutputsCli, ReproduceWritesTheGoldenTablesChecksAndSidecars) {
  reproduce("r");
  expect_golden(golden_dir() / "reproduce", "r", true);
}

// Sharded: each experiment's shards (their sweep sidecars) and the merge
// (its table, summary and sidecar) as the earlier shard and merge writers did.
TEST_F(GoldenOutputsCli, ShardedReproduceMergesToTheGoldenBytes) {
  reproduce("s", "--shards 2");
  expect_golden(golden_dir() / "sharded/shards", "s/shards", false);
  expect_golden(golden_dir() / "sharded", "s", false);
  for (const std::string table : {"convergence.csv", "power.summary.csv", "blocksize.summary.csv"})
    EXPECT_EQ(testing::slurp(path("s/" + table)),
              testing::slurp(golden_dir() / "reproduce" / table))
        << table;
}

TEST_F(GoldenOutputsCli, SampleWritesTheGoldenHashesAndBlocks) {
  const std::string run = "sample --n 40 --sigma 4 --s 3 --seed 5 --trial 1 --out ";
  fs::create_directories(path("sample"));
  ASSERT_EQ(cli(run + path("sample/hashes.csv")).exit_code, 0);
  ASSERT_EQ(cli(run + path("sample/blocks.csv") + " --blocks").exit_code, 0);
  expect_golden(golden_dir() / "sample", "sample", true);
}

}  // namespace
}  // namespace poslsh
