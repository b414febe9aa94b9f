// The declarative experiment runner (src/runner/swept_experiment.h) on the
// minimal experiment of docs/ARCHITECTURE.md ("Adding an experiment"), and the
// one --sigma / --alibi-heads resolution every experiment shares
// (experiments/argument_flags.h).
#include <unistd.h>
#include <gtest/gtest.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/positional_hash.h>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "cli_harness.h"
#include "experiments/argument_flags.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"
#include "runner/swept_experiment.h"

namespace poslsh {
namespace swept_experiment_test {

namespace fs = std::filesystem;
using testing::slurp;

// The example of docs/ARCHITECTURE.md: one row per (sigma, trial), the pitch
// of hash 0 of that trial. The lines between the markers are the doc's code
// block, line for line (tests/test_doc_example.cpp compares them).
// [doc-example begin]
struct PitchCell {
  double sigma;
  std::int64_t trial;
};

class Pitch : public SweptExperiment<PitchCell> {
 public:
  void declare_options(CLI::App& cmd) override {
    cmd.add_option("--sigma", sigma_, "ALiBi scales (list, > 0)")->delimiter(',')->required();
    cmd.add_option("--trials", trials_, "Hashes per sigma (>= 1)")->capture_default_str();
    cmd.add_option("--seed", seed_, "Random seed")->capture_default_str();
  }
  void validate(CLI::App&, const SweepOptions&) override {
    require_positive_finite("--sigma", sigma_);
    require_at_least("--trials", trials_, 1);
  }
  std::vector<std::string> columns() const override { return {"sigma", "trial", "pitch"}; }
  std::vector<PitchCell> cells() const override {
    std::vector<PitchCell> cells;
    for (double sigma : sigma_)
      for (std::int64_t t = 0; t < trials_; ++t) cells.push_back({sigma, t});
    return cells;
  }
  std::vector<CsvRow> rows(const PitchCell& c) const override {
    const auto h = draw_hash(seed_, static_cast<std::uint64_t>(c.trial), 0, c.sigma);
    return {{format_value(c.sigma), std::to_string(c.trial), format_value(h.pitch)}};
  }
  std::string label(const PitchCell& c) const override {
    return "sigma=" + format_value(c.sigma) + " trial=" + std::to_string(c.trial);
  }
  std::uint64_t seed() const override { return seed_; }

 private:
  std::vector<double> sigma_;
  std::int64_t trials_ = 100;
  std::uint64_t seed_ = 0;
};
// [doc-example end]

class SweptExperimentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("poslsh_swept_" + std::to_string(::getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `pitch ARGS --out DIR/NAME --quiet` through swept_command; its exit code.
  int run(const std::string& args, const std::string& name, const TableSummary& summary = {}) {
    CLI::App app;
    const auto action =
        swept_command(app, "pitch", "Pitches of drawn hashes", std::make_shared<Pitch>(), summary);
    app.parse("pitch " + args + " --quiet --out " + path(name), false);
    return action();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(SweptExperimentTest, RowsAreTheExperimentsInCellOrderForAnyThreadCount) {
  ASSERT_EQ(run("--sigma 2,8 --trials 5 --seed 3 --threads 1", "one.csv"), 0);
  ASSERT_EQ(run("--sigma 2,8 --trials 5 --seed 3 --threads 4", "four.csv"), 0);
  EXPECT_EQ(slurp(path("one.csv")), slurp(path("four.csv")));
  // Oracle: the rows straight from draw_hash, in (sigma, trial) order.
  std::string expected = "sigma,trial,pitch\n";
  for (double sigma : {2.0, 8.0})
    for (std::uint64_t t = 0; t < 5; ++t)
      expected += format_value(sigma) + "," + std::to_string(t) + "," +
                  format_value(draw_hash(3, t, 0, sigma).pitch) + "\n";
  EXPECT_EQ(slurp(path("one.csv")), expected);
}

TEST_F(SweptExperimentTest, SidecarRecordsTheExperimentItsOptionsAndSeed) {
  ASSERT_EQ(run("--sigma 4 --trials 2 --seed 9", "t.csv"), 0);
  const std::string meta = slurp(path("t.csv") + ".meta.json");
  EXPECT_NE(meta.find("\"experiment\": \"pitch\""), std::string::npos) << meta;
  EXPECT_NE(meta.find("trials = 2"), std::string::npos) << meta;
  EXPECT_NE(meta.find("seed = 9"), std::string::npos) << meta;
  EXPECT_EQ(meta.find("out = "), std::string::npos) << meta;  // runner options are not recorded
}

TEST_F(SweptExperimentTest, ShardsConcatenateToTheSingleRunTable) {
  ASSERT_EQ(run("--sigma 2,8 --trials 3", "all.csv"), 0);
  ASSERT_EQ(run("--sigma 2,8 --trials 3 --shard 1/2", "a.csv"), 0);
  ASSERT_EQ(run("--sigma 2,8 --trials 3 --shard 2/2", "b.csv"), 0);
  const std::string b = slurp(path("b.csv"));
  EXPECT_EQ(slurp(path("a.csv")) + b.substr(b.find('\n') + 1), slurp(path("all.csv")));
}

TEST_F(SweptExperimentTest, SummaryIsWrittenFromTheWrittenTable) {
  const TableSummary rows_count = [](const CsvTable& t) {
    return "rows\n" + std::to_string(t.size()) + "\n";
  };
  ASSERT_EQ(run("--sigma 2,8 --trials 3", "s.csv", rows_count), 0);
  EXPECT_EQ(slurp(path("s.summary.csv")), "rows\n6\n");
}

TEST_F(SweptExperimentTest, ValidationRefusesBeforeAnythingIsWritten) {
  EXPECT_THROW(run("--sigma 2,-1 --trials 3", "bad.csv"), UsageError);
  EXPECT_THROW(run("--sigma 2 --trials 0", "bad.csv"), UsageError);
  EXPECT_FALSE(fs::exists(path("bad.csv")));
  EXPECT_FALSE(fs::exists(path("bad.csv.partial")));
}

// --sigma or --alibi-heads: one resolution, one set of messages.
struct ScalesCommand {
  CLI::App app;
  std::vector<double> sigma;
  int heads = 0;
  bool independent = false;
  explicit ScalesCommand(std::vector<double> default_sigma) : sigma(std::move(default_sigma)) {
    app.add_option("--sigma", sigma)->delimiter(',');
    app.add_option("--alibi-heads", heads);
    app.add_flag("--independent-heads", independent);
  }
  AlibiScales resolve(const std::string& args, bool zero_is_off) {
    app.parse(args, false);
    return resolve_alibi_scales(app, sigma, heads, independent, zero_is_off);
  }
};

std::string usage_message(const std::string& args, bool zero_is_off,
                          std::vector<double> default_sigma = {}) {
  try {
    ScalesCommand(std::move(default_sigma)).resolve(args, zero_is_off);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ResolveAlibiScales, SigmaOrHeadsGiveTheirScales) {
  const AlibiScales by_sigma = ScalesCommand({}).resolve("--sigma 2,8", false);
  EXPECT_EQ(by_sigma.sigmas, (std::vector<double>{2, 8}));
  EXPECT_FALSE(by_sigma.by_heads());
  EXPECT_EQ(by_sigma.config_note(), "");
  const AlibiScales by_heads = ScalesCommand({16}).resolve("--alibi-heads 3", true);
  EXPECT_EQ(by_heads.sigmas, alibi_head_sigmas(3));
  EXPECT_EQ(by_heads.heads, 3);
  EXPECT_EQ(by_heads.config_note(), alibi_heads_config_note(3));
  // zero_is_off: --alibi-heads 0 leaves the (default) --sigma in charge.
  EXPECT_EQ(ScalesCommand({16}).resolve("--alibi-heads 0", true).sigmas, std::vector<double>{16});
}

TEST(ResolveAlibiScales, EveryCommandRefusesWithTheSameMessages) {
  const std::string both = "--sigma and --alibi-heads are exclusive: give one of them, not both";
  EXPECT_EQ(usage_message("--sigma 4 --alibi-heads 2", true), both);
  EXPECT_EQ(usage_message("--sigma 4 --alibi-heads 2", false), both);
  EXPECT_EQ(usage_message("", false),
            "--sigma needs at least one scale > 0 (or give --alibi-heads H)");
  EXPECT_EQ(usage_message("--alibi-heads 0", false),
            "--alibi-heads must be an integer >= 1 (got 0)");
  EXPECT_EQ(usage_message("--alibi-heads -2", true),
            "--alibi-heads must be an integer >= 1 (got -2)");
  EXPECT_NE(usage_message("--sigma 4,-1", false).find("--sigma"), std::string::npos);
  EXPECT_NE(usage_message("--sigma 4 --independent-heads", false).find("--independent-heads"),
            std::string::npos);
  EXPECT_EQ(usage_message("--alibi-heads 2 --independent-heads", false), "(accepted)");
}

// "independent-heads = false" (from a config) is cleared, so the recorded
// config and its fingerprint are those of a run that never named the flag.
TEST(ResolveAlibiScales, UnsetIndependentHeadsIsLeftOutOfTheRecordedConfig) {
  ScalesCommand off({});
  off.resolve("--alibi-heads 2 --independent-heads=false", false);
  EXPECT_EQ(off.app.get_option("--independent-heads")->count(), 0u);
  ScalesCommand on({});
  on.resolve("--alibi-heads 2 --independent-heads", false);
  EXPECT_EQ(on.app.get_option("--independent-heads")->count(), 1u);
}

}  // namespace swept_experiment_test
}  // namespace poslsh
