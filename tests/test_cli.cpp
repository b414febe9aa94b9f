// `poslsh` end to end: help, version, sample output, bad input, config files.
#include <gtest/gtest.h>
#include <poslsh/kernel.h>
#include <poslsh/positional_hash.h>

#include <fstream>

#include "cli_harness.h"
#include "runner/csv_table.h"

namespace poslsh {
namespace {

using Cli = testing::CliTest;
namespace fs = std::filesystem;

TEST_F(Cli, HelpAndVersion) {
  auto r = cli("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("sample"), std::string::npos);
  EXPECT_EQ(cli("sample --help").exit_code, 0);
  r = cli("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("poslsh ", 0), 0u);
}

TEST_F(Cli, SampleWritesTheExperimentHashesExactly) {
  ASSERT_EQ(
      cli("sample --n 100 --sigma 16 --s 50 --seed 9 --trial 2 --out " + path("a.csv")).exit_code,
      0);
  ASSERT_EQ(
      cli("sample --n 100 --sigma 16 --s 50 --seed 9 --trial 2 --out " + path("b.csv")).exit_code,
      0);
  EXPECT_EQ(testing::slurp(path("a.csv")), testing::slurp(path("b.csv")));
  const CsvTable t = CsvTable::read(path("a.csv"));
  ASSERT_EQ(t.columns(), (std::vector<std::string>{"sample", "pitch", "shift"}));
  ASSERT_EQ(t.size(), 50u);
  for (std::size_t k = 0; k < t.size(); ++k) {
    const auto h = draw_hash(9, 2, k, 16.0);
    EXPECT_EQ(t.number(k, "pitch"), h.pitch);  // exact: the CSV round-trips doubles
    EXPECT_EQ(t.number(k, "shift"), h.shift);
  }
}

TEST_F(Cli, SampleBlocksArePartitions) {
  ASSERT_EQ(
      cli("sample --n 300 --sigma 4 --s 3 --seed 1 --blocks --out " + path("b.csv")).exit_code, 0);
  const CsvTable t = CsvTable::read(path("b.csv"));
  ASSERT_EQ(t.columns(), (std::vector<std::string>{"sample", "start", "end"}));
  std::vector<std::int64_t> next(3, 0);
  for (std::size_t r = 0; r < t.size(); ++r) {
    const auto k = static_cast<std::size_t>(t.number(r, "sample"));
    EXPECT_EQ(t.number(r, "start"), next[k]);
    next[k] = static_cast<std::int64_t>(t.number(r, "end"));
  }
  EXPECT_EQ(next, (std::vector<std::int64_t>{300, 300, 300}));
}

// --kernel: the hashes are the kernel's own draws (poslsh/kernel.h), a
// laplace kernel's are the plain sample's, and a table outside the framework
// is one line naming the first t that breaks it, nothing written.
TEST_F(Cli, SampleDrawsAKernelsGridsAndRefusesTablesOutsideTheFramework) {
  const std::string args = "sample --n 100 --sigma 8 --s 20 --seed 3 --out ";
  ASSERT_EQ(cli(args + path("p.csv") + " --kernel power-law:1.5").exit_code, 0);
  const CsvTable t = CsvTable::read(path("p.csv"));
  const Kernel kernel = Kernel::power_law(8, 1.5);
  for (std::size_t k = 0; k < t.size(); ++k) EXPECT_EQ(t.number(k, "pitch"), kernel.draw(3, 0, k).pitch);
  EXPECT_NE(testing::slurp(path("p.csv.meta.json")).find("kernel = \\\"power-law:1.5\\\""),
            std::string::npos);
  ASSERT_EQ(cli(args + path("a.csv")).exit_code, 0);
  ASSERT_EQ(cli(args + path("b.csv") + " --kernel laplace").exit_code, 0);
  EXPECT_EQ(testing::slurp(path("a.csv")), testing::slurp(path("b.csv")));
  EXPECT_EQ(testing::slurp(path("a.csv.meta.json")).find("kernel"), std::string::npos);
  std::ofstream(path("window.txt")) << "1, 1, 1, 0, 0\n";
  expect_usage_error(args + path("w.csv") + " --kernel table:" + path("window.txt"), "t = 2 breaks it");
  expect_usage_error(args + path("w.csv") + " --kernel stretched-exponential:2", "--kernel");
  expect_usage_error(args + path("w.csv") + " --kernel gauss", "--kernel accepts");
  EXPECT_FALSE(std::filesystem::exists(path("w.csv")));
}

TEST_F(Cli, BadInputIsOneLineExitTwoAndNoFile) {
  const std::string ok_out = " --out " + path("x.csv");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sample --n 0 --sigma 4 --s 2", "--n"},
      {"sample --n -5 --sigma 4 --s 2", "--n"},
      {"sample --n 10 --sigma -1 --s 2", "--sigma"},
      {"sample --n 10 --sigma 0 --s 2", "--sigma"},
      {"sample --n 10 --sigma nan --s 2", "--sigma"},
      {"sample --n 10 --sigma inf --s 2", "--sigma"},
      {"sample --n 10 --sigma 4 --s 0", "--s"},
      {"sample --n abc --sigma 4 --s 2", "--n"},
      {"sample --n 10 --sigma x --s 2", "--sigma"},
      {"sample --n 10 --sigma 4 --s 2 --frobnicate 3", "--frobnicate"},
      {"sample --n 10 --sigma 4", "--s"},
      {"nosuchcommand", "nosuchcommand"},
  };
  for (const auto& [args, mention] : cases) {
    expect_usage_error(args + ok_out, mention);
    EXPECT_FALSE(fs::exists(path("x.csv"))) << args;
  }
  // A folder that cannot be made (a file stands in its place; missing
  // folders are created, tests/test_output_paths.cpp).
  std::ofstream(path("a-file")) << "x";
  expect_usage_error("sample --n 10 --sigma 4 --s 2 --out " + path("a-file/dir/x.csv"), "--out");
  // No temporary file is left behind either.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()),
            3);  // .stdout, .stderr, a-file
}

TEST_F(Cli, ConfigFileSectionsAndOverrides) {
  std::ofstream(path("c.toml")) << "[sample]\nn = 50\nsigma = 2.5\ns = 4\nseed = 3\n";
  ASSERT_EQ(cli("sample --config " + path("c.toml") + " --out " + path("a.csv")).exit_code, 0);
  EXPECT_EQ(CsvTable::read(path("a.csv")).size(), 4u);
  ASSERT_EQ(cli("sample --config " + path("c.toml") + " --s 6 --out " + path("b.csv")).exit_code,
            0);
  EXPECT_EQ(CsvTable::read(path("b.csv")).size(), 6u) << "the command line overrides the file";
  EXPECT_EQ(CsvTable::read(path("b.csv")).number(0, "pitch"), draw_hash(3, 0, 0, 2.5).pitch);

  std::ofstream(path("bad.toml")) << "[sample]\nn = 50\nsigmaa = 2.5\n";
  expect_usage_error(
      "sample --config " + path("bad.toml") + " --s 2 --sigma 1 --out " + path("x.csv"), "sigmaa");
  expect_usage_error("sample --config " + path("none.toml") + " --out " + path("x.csv"),
                     "--config");
  std::ofstream(path("type.toml")) << "[sample]\nn = \"many\"\n";
  expect_usage_error(
      "sample --config " + path("type.toml") + " --s 2 --sigma 1 --out " + path("x.csv"), "--n");
  EXPECT_FALSE(fs::exists(path("x.csv")));
}

TEST_F(Cli, CheckAndMergeRejectUnusableInput) {
  std::ofstream(path("other.csv")) << "a,b\n1,2\n";
  expect_usage_error("check " + path("other.csv"), "other.csv");
  expect_usage_error("check " + path("absent.csv"), "absent.csv");
  // A header without rows, a repeated column, a NaN measurement: unusable, never a PASS.
  std::ofstream(path("empty.csv")) << "n,sigma,region,anchor,t,hashes,batch,cobinned,expected,"
                                      "batch_cobinned_sumsq\n";
  expect_usage_error("check " + path("empty.csv"), "no rows");
  std::ofstream(path("twice.csv")) << "n,n\n1,1\n";
  expect_usage_error("check " + path("twice.csv"), "appears twice");
  ASSERT_EQ(
      cli("unbiasedness --n 64 --sigma 2 --hashes 1600 --quiet --out " + path("u.csv")).exit_code,
      0);
  std::string text = testing::slurp(path("u.csv"));
  const auto last_comma = text.rfind(',', text.size() - 2);
  text = text.substr(0, last_comma) + ",nan\n";
  std::ofstream(path("u.csv")) << text;
  expect_usage_error("check " + path("u.csv"), "batch_cobinned_sumsq");
  std::ofstream(path("s1.csv")) << "a,b\n1,2\n";
  expect_usage_error("merge --out " + path("m.csv") + " " + path("s1.csv"), "meta.json");
  EXPECT_FALSE(fs::exists(path("m.csv")));
}

}  // namespace
}  // namespace poslsh
