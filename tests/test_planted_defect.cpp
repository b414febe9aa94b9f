// --plant-defect: a whole reproduction, or a file for `poslsh verify`, made
// from a broken sampler must FAIL, and the same run from the real sampler
// must pass. Each bug class the checks are meant to catch (repeated trials,
// repeats at a lag, a pitch law wrong in its tail, a defect at sigmas no
// table has, a trial and index packed into one key, float32 positions, a
// causal mask built one position late) is planted in turn.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "cli_harness.h"
#include "runner/csv_table.h"

namespace poslsh {
namespace {

namespace fs = std::filesystem;

// Small enough for a test, large enough that each defect below reaches a
// FAIL: s = 512 hashes per trial (the lag-64 repeats and the 10-sigma cap act
// only on trials of more than 64 hashes, or with a pitch beyond 10 sigma), an
// unbiasedness anchor past 2^24 (float32 positions) and consumers at n < 2^32
// (the causal mask).
constexpr const char* kSmallConfig =
    "[convergence]\nn = [256]\nsigma = [4]\ns = [1, 2, 4, 8, 16]\ntrials = 3\nseed = 1\n"
    "[blocksize]\nn = [65536]\nsigma = [4]\ns = [512]\ntrials = 250\nseed = 1\n"
    "[unbiasedness]\nn = [65536, 1125899906842624]\nsigma = [4]\nhashes = 16384\nseed = 1\n"
    "[hash-law]\nsigma = [2, 2.5198421]\nindices = 512\ntrials = 4096\nseed = 1\n"
    "[attention]\nn = [512]\nd = [8]\nsigma = [8]\ns = [4]\ntrials = 2\nseed = 1\n"
    "estimator = [\"lsh\"]\n";

struct Planted {
  const char* defect;
  const char* failing_table;  // a table with a FAIL line; "" for the sound sampler
};

class PlantedReproduce : public testing::CliTest, public ::testing::WithParamInterface<Planted> {};

// The tables with a FAIL line in checks.csv.
std::set<std::string> failing_tables(const std::string& checks_csv) {
  const CsvTable checks = CsvTable::read(checks_csv);
  std::set<std::string> tables;
  for (std::size_t r = 0; r < checks.size(); ++r)
    if (checks.text(r, "verdict") == "FAIL") tables.insert(checks.text(r, "table"));
  return tables;
}

TEST_P(PlantedReproduce, FailsExactlyWhenADefectIsPlanted) {
  const Planted p = GetParam();
  std::ofstream(path("small.toml")) << kSmallConfig;
  const auto r = cli("reproduce --config " + path("small.toml") + " --out " + path("r") +
                     " --no-plots --quiet --plant-defect " + p.defect);
  const std::string report = testing::slurp(path("r/report.md"));
  const auto failing = failing_tables(path("r/checks.csv"));
  if (std::string(p.defect) == "sound") {
    EXPECT_EQ(r.exit_code, 0) << r.err << report;
    EXPECT_TRUE(failing.empty()) << report;
    EXPECT_NE(report.find("sampler: the real one"), std::string::npos) << report;
    return;
  }
  EXPECT_EQ(r.exit_code, 1) << r.err << report;
  EXPECT_TRUE(failing.count(p.failing_table)) << p.defect << "\n" << report;
  EXPECT_NE(report.find(std::string("defect `") + p.defect + "` planted"), std::string::npos)
      << report;
  // The tables record it, so `poslsh rerun` plants it again.
  EXPECT_NE(testing::slurp(path("r/unbiasedness.csv.meta.json")).find(p.defect), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Defects, PlantedReproduce,
                         ::testing::Values(Planted{"sound", ""},
                                           Planted{"repeated-trials", "convergence"},
                                           Planted{"repeat-lag-64", "blocksize"},
                                           Planted{"pitch-cap-10sigma", "blocksize"},
                                           Planted{"float32-positions", "unbiasedness"},
                                           Planted{"causal-mask-shift", "unbiasedness"},
                                           Planted{"trial-low-32-bits", "hash-law"},
                                           Planted{"pitch-cap-14sigma", "hash-law"},
                                           Planted{"pitch-clamp-14sigma", "hash-law"},
                                           Planted{"pitch-x1.05-sigma-64-256", "hash-law"},
                                           Planted{"packed-key-513", "hash-law"},
                                           Planted{"repeat-lag-500", "hash-law"},
                                           Planted{"batched-shared-shift", "hash-law"},
                                           Planted{"one-based-bins", "hash-law"},
                                           Planted{"estimator-drops-a-hash", "attention"},
                                           Planted{"estimator-key-tile-off-by-one", "attention"}),
                         [](const auto& info) {
                           std::string name = info.param.defect;
                           for (auto& c : name)
                             if (c == '-' || c == '.') c = '_';
                           return name;
                         });

using PlantDefectCli = testing::CliTest;

// Exported hashes of a broken sampler fail `poslsh verify`; the real ones pass.
TEST_F(PlantDefectCli, SampledHashesOfADefectFailVerify) {
  for (const std::string defect : {"sound", "pitch-cap-10sigma", "repeat-lag-64"}) {
    const std::string csv = path(defect + ".csv");
    ASSERT_EQ(
        cli("sample --n 4096 --sigma 16 --s 131072 --plant-defect " + defect + " --out " + csv)
            .exit_code,
        0);
    const auto v = cli("verify --hashes " + csv + " --n 4096 --sigma 16");
    EXPECT_EQ(v.exit_code, defect == "sound" ? 0 : 1) << defect << "\n" << v.out;
  }
  // A sound sample's sidecar is the one it had before the option existed.
  EXPECT_EQ(testing::slurp(path("sound.csv.meta.json")).find("plant-defect"), std::string::npos);
  EXPECT_NE(testing::slurp(path("repeat-lag-64.csv.meta.json")).find("plant-defect"),
            std::string::npos);
}

TEST_F(PlantDefectCli, RefusesNamesItCannotPlant) {
  expect_usage_error("sample --n 8 --sigma 2 --s 1 --plant-defect nosuch --out " + path("a.csv"),
                     "--plant-defect");
  // b_max inflation edits a finished block-size table (power only), no sampler.
  expect_usage_error(
      "blocksize --n 64 --sigma 2 --s 1 --plant-defect bmax-sigma-ln-n --out " + path("b.csv"),
      "--plant-defect");
  EXPECT_FALSE(fs::exists(path("a.csv")));
  EXPECT_FALSE(fs::exists(path("b.csv")));
}

}  // namespace
}  // namespace poslsh
