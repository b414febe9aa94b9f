// The config a run records in its .meta.json runs again: fed back with
// --config it gives the same bytes (the point of recording it).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poslsh/npy.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "cli_harness.h"
#include "runner/run_record.h"

namespace poslsh {
namespace {

using Provenance = testing::CliTest;

TEST_F(Provenance, RecordedConfigsRerunToTheSameBytes) {
  // Three runs whose configs used not to re-run: list defaults, a scale
  // replaced by --alibi-heads, and tensors read from a relative directory.
  std::filesystem::create_directories(path("tensors"));
  std::vector<double> x(48 * 8);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.3 * static_cast<double>(i));
  for (const char* f : {"q.npy", "k.npy", "v.npy"})
    write_npy(path(std::string("tensors/") + f), {48, 8}, x.data(), NpyDtype::kFloat64);
  struct Run {
    std::string experiment, args;
  };
  const std::vector<Run> runs = {
      {"convergence", "--trials 1 --s 1,2"},
      {"convergence", "--alibi-heads 3 --n 64 --s 1 --trials 1"},
      {"attention", "--qkv tensors --sigma 4 --s 2 --trials 1"},
  };
  for (std::size_t k = 0; k < runs.size(); ++k) {
    SCOPED_TRACE(runs[k].args);
    const std::string a = path(fmt::format("a{}.csv", k));
    const std::string b = path(fmt::format("b{}.csv", k));
    const std::string toml = path(fmt::format("c{}.toml", k));
    // Relative paths resolve against the test's directory.
    const std::string in_dir = "cd " + dir_.string() + " && " + POSLSH_CLI + " ";
    ASSERT_EQ(std::system((in_dir + runs[k].experiment + " " + runs[k].args +
                           " --quiet --no-timing --out " + a + " >/dev/null 2>&1")
                              .c_str()),
              0);
    const std::string config = RunRecord::read(a + ".meta.json", "test").text("config");
    EXPECT_EQ(config.find("[["), std::string::npos) << config;
    std::ofstream(toml) << "[" << runs[k].experiment << "]\n" << config;
    const auto r =
        cli(runs[k].experiment + " --config " + toml + " --quiet --no-timing --out " + b);
    ASSERT_EQ(r.exit_code, 0) << r.err << "\n" << config;
    EXPECT_EQ(testing::slurp(a), testing::slurp(b));
  }
  // The tensors' checksums are part of the record (as comments).
  const std::string meta = testing::slurp(path("a2.csv.meta.json"));
  const std::string q = std::filesystem::canonical(path("tensors/q.npy")).string();
  EXPECT_NE(meta.find("# input " + q + " sha256 "), std::string::npos) << meta;
  // Options that do not apply to tensors from files are not recorded.
  for (const char* absent : {"qk-scale", "\\nn = ", "\\nd = "})
    EXPECT_EQ(meta.find(absent), std::string::npos) << absent << "\n" << meta;
}

// Writes small float64 q/k/v tensors (n x d) into DIR.
void write_tensors(const std::string& dir, std::int64_t n, std::int64_t d) {
  std::filesystem::create_directories(dir);
  std::vector<double> x(static_cast<std::size_t>(n * d));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7 * static_cast<double>(i));
  for (const char* f : {"q.npy", "k.npy", "v.npy"})
    write_npy(dir + "/" + f, {n, d}, x.data(), NpyDtype::kFloat64);
}

TEST_F(Provenance, RerunReproducesEveryExperimentByteForByte) {
  write_tensors(path("tensors"), 40, 4);
  const std::vector<std::string> runs = {
      "convergence --n 64,128 --sigma 4 --s 1,2 --trials 2",
      "convergence --alibi-heads 3 --n 64 --s 1 --trials 1 --causal",
      "blocksize --n 100,5000 --alibi-heads 4 --s 3 --s-log 1 --trials 30",
      "attention --qkv tensors --sigma 4 --s 2 --trials 1",
      "attention --n 64 --d 4 --alibi-heads 2 --s 2 --trials 2 --causal",
      "unbiasedness --n 2048 --sigma 3 --hashes 32768",
      "power --defects sound --seeds 1 --unbiasedness-n 2048 --unbiasedness-sigma 4 "
      "--unbiasedness-hashes 32768",
      "convergence --n 64 --sigma 4 --s 1,2 --trials 3 --shard 2/3",
      "convergence --alibi-heads 3 --independent-heads --n 64 --s 1,2 --trials 1",
      "blocksize --n 100,5000 --alibi-heads 3 --independent-heads --s 3 --trials 20",
      "attention --n 64 --d 4 --alibi-heads 3 --independent-heads --s 2 --trials 1",
  };
  for (std::size_t k = 0; k < runs.size(); ++k) {
    SCOPED_TRACE(runs[k]);
    const std::string a = path(fmt::format("a{}.csv", k)), b = path(fmt::format("b{}.csv", k));
    const std::string in_dir = "cd " + dir_.string() + " && " + POSLSH_CLI + " ";
    ASSERT_EQ(
        std::system(
            (in_dir + runs[k] + " --quiet --no-timing --out " + a + " >/dev/null 2>&1").c_str()),
        0);
    // From another directory, as a colleague would.
    const auto r = cli("rerun " + a + ".meta.json --no-timing --quiet --out " + b);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(testing::slurp(a), testing::slurp(b));
    EXPECT_EQ(testing::slurp(a + ".meta.json").substr(0, 200),
              testing::slurp(b + ".meta.json").substr(0, 200));
  }
  // sample writes a sidecar too, and it replays.
  for (const std::string flags : {"", " --blocks"}) {
    ASSERT_EQ(
        cli("sample --n 500 --sigma 3 --s 4 --seed 5 --trial 2" + flags + " --out " + path("s.csv"))
            .exit_code,
        0);
    const auto r = cli("rerun " + path("s.csv.meta.json") + " --out " + path("t.csv"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(testing::slurp(path("s.csv")), testing::slurp(path("t.csv"))) << flags;
  }
}

TEST_F(Provenance, RerunRefusesChangedInputsAndForeignSidecars) {
  write_tensors(path("tensors"), 40, 4);
  ASSERT_EQ(cli("attention --qkv " + path("tensors") +
                " --sigma 4 --s 2 --trials 1 --quiet --no-timing --out " + path("a.csv"))
                .exit_code,
            0);
  // One element of k changed: the rerun would compute something else.
  write_tensors(path("other"), 40, 4);
  std::vector<double> x(40 * 4, 0.5);
  write_npy(path("tensors/k.npy"), {40, 4}, x.data(), NpyDtype::kFloat64);
  auto r = cli("rerun " + path("a.csv.meta.json") + " --out " + path("b.csv"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("changed since the run"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("k.npy"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("b.csv")));
  // Not a sidecar, a sidecar of a merge, a missing file.
  std::ofstream(path("x.meta.json")) << "{\n  \"tool\": \"other\"\n}\n";
  expect_usage_error("rerun " + path("x.meta.json") + " --out " + path("b.csv"),
                     "not written by poslsh");
  expect_usage_error("rerun " + path("missing.meta.json") + " --out " + path("b.csv"),
                     "missing.meta.json");
  const std::string run = "convergence --n 64 --sigma 4 --s 1 --trials 2 --quiet --no-timing ";
  ASSERT_EQ(cli(run + "--shard 1/2 --out " + path("p1.csv")).exit_code, 0);
  ASSERT_EQ(cli(run + "--shard 2/2 --out " + path("p2.csv")).exit_code, 0);
  ASSERT_EQ(
      cli("merge --out " + path("m.csv") + " " + path("p1.csv") + " " + path("p2.csv")).exit_code,
      0);
  expect_usage_error("rerun " + path("m.csv.meta.json") + " --out " + path("b.csv"),
                     "merge of shards");
  EXPECT_FALSE(std::filesystem::exists(path("b.csv")));
}

}  // namespace
}  // namespace poslsh
