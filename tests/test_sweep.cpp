// The sweep runner: thread-count independence, resume after a kill, shards.
#include <unistd.h>
#include <gtest/gtest.h>
#include <poslsh/input_error.h>
#include <poslsh/rng.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "runner/cli_common.h"
#include "runner/sweep.h"

namespace poslsh {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A sweep whose cells take uneven time, so threads finish out of order.
Sweep toy_sweep(std::size_t cells, std::size_t fail_at = SIZE_MAX) {
  Sweep s;
  s.experiment = "toy";
  s.columns = {"cell", "row", "value", "seconds"};
  s.timing_columns = {"seconds"};
  s.num_cells = cells;
  s.label = [](std::size_t c) { return "cell " + std::to_string(c); };
  s.run_cell = [fail_at](std::size_t c) {
    if (c == fail_at) throw std::runtime_error("deliberate failure");
    std::vector<CsvRow> rows;
    Stream rng(7, c, 0, StreamPurpose::kHash);
    double acc = 0;
    for (int i = 0; i < static_cast<int>(1000 * (c % 5 + 1)); ++i) acc += rng.uniform();
    for (int r = 0; r < static_cast<int>(c % 3 + 1); ++r)
      rows.push_back({std::to_string(c), std::to_string(r), format_value(acc), "0.5"});
    return rows;
  };
  s.resolved_config = "cells = " + std::to_string(cells) + "\n";
  s.seed = 7;
  return s;
}

class SweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("poslsh_sweep_" + std::to_string(::getpid()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string run(const Sweep& s, SweepOptions o, const std::string& name, int expect_rc = 0) {
    o.out = (dir_ / name).string();
    o.quiet = true;
    EXPECT_EQ(run_sweep(s, o), expect_rc);
    return slurp(o.out);
  }
  fs::path dir_;
};

TEST_F(SweepTest, OutputIsIndependentOfThreadCount) {
  const Sweep s = toy_sweep(40);
  SweepOptions o;
  o.threads = 1;
  const std::string one = run(s, o, "one.csv");
  o.threads = 2;
  const std::string two = run(s, o, "two.csv");
  o.threads = 5;
  const std::string five = run(s, o, "five.csv");
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, five);
  EXPECT_EQ(one.substr(0, one.find('\n')), "cell,row,value,seconds");
  EXPECT_TRUE(fs::exists(dir_ / "one.csv.meta.json"));
  EXPECT_FALSE(fs::exists(dir_ / "one.csv.partial"));
}

// Sweep::cost: on one thread the cells start costliest first (ties in cell
// order), and the table is the same bytes as without a cost.
TEST_F(SweepTest, CostliestCellsStartFirstAndTheTableStaysInCellOrder) {
  Sweep plain = toy_sweep(6);
  SweepOptions o;
  o.threads = 1;
  const std::string unordered = run(plain, o, "plain.csv");
  auto started = std::make_shared<std::vector<std::size_t>>();
  Sweep costed = toy_sweep(6);
  costed.cost = [](std::size_t c) { return c == 1 ? 1.0 : static_cast<double>(c % 3); };
  costed.run_cell = [inner = costed.run_cell, started](std::size_t c) {
    started->push_back(c);
    return inner(c);
  };
  EXPECT_EQ(run(costed, o, "costed.csv"), unordered);
  // costs: 0 1 2 0 1 2 (cell 1: 1) -> 2, 5, then 1, 4, then 0, 3
  EXPECT_EQ(*started, (std::vector<std::size_t>{2, 5, 1, 4, 0, 3}));
}

TEST_F(SweepTest, NoTimingBlanksTimingColumns) {
  SweepOptions o;
  o.no_timing = true;
  const std::string text = run(toy_sweep(3), o, "t.csv");
  EXPECT_NE(text.find("0,0,"), std::string::npos);
  EXPECT_EQ(text.find("0.5"), std::string::npos);
}

TEST_F(SweepTest, ResumeAfterKillGivesTheSameBytes) {
  const Sweep s = toy_sweep(30);
  SweepOptions o;
  o.threads = 2;
  const std::string whole = run(s, o, "whole.csv");

  // Simulate a kill: a partial file with some finished cells, out of order,
  // and a last record cut in the middle of a row.
  const fs::path out = dir_ / "killed.csv";
  {
    // Produce a genuine partial header by running a failing sweep with the same identity.
    Sweep failing = s;
    failing.run_cell = [&](std::size_t c) {
      if (c >= 12) throw std::runtime_error("killed");
      return s.run_cell(c);
    };
    SweepOptions fo = o;
    fo.threads = 1;
    fo.out = out.string();
    fo.quiet = true;
    EXPECT_EQ(run_sweep(failing, fo), 1);
  }
  ASSERT_TRUE(fs::exists(out.string() + ".partial"));
  EXPECT_FALSE(fs::exists(out)) << "a failed run must not write the target";
  {
    std::ofstream torn(out.string() + ".partial", std::ios::app | std::ios::binary);
    torn << "#cell 20 3\n20,0,0.12";  // no newline, no #end: torn by the kill
  }
  o.resume = true;
  o.out = out.string();
  o.quiet = true;
  EXPECT_EQ(run_sweep(s, o), 0);
  EXPECT_EQ(slurp(out), whole);
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));
}

TEST_F(SweepTest, ResumeRefusesAPartialOfAnotherSweep) {
  const fs::path out = dir_ / "x.csv";
  std::ofstream(out.string() + ".partial") << "#poslsh-partial v1 toy 0000000000000000\n";
  SweepOptions o;
  o.resume = true;
  o.out = out.string();
  o.quiet = true;
  EXPECT_THROW(run_sweep(toy_sweep(4), o), UsageError);
}

TEST_F(SweepTest, ShardsConcatenateToTheSingleRun) {
  const Sweep s = toy_sweep(17);
  SweepOptions o;
  const std::string whole = run(s, o, "whole.csv");
  std::string merged;
  for (int k = 1; k <= 3; ++k) {
    o.shard = std::to_string(k) + "/3";
    const std::string part = run(s, o, "part" + std::to_string(k) + ".csv");
    merged += k == 1 ? part : part.substr(part.find('\n') + 1);
  }
  EXPECT_EQ(merged, whole);
  std::size_t covered = 0;
  for (int k = 1; k <= 4; ++k) {
    const auto [b, e] = shard_range(17, k, 4);
    EXPECT_EQ(b, covered);
    covered = e;
  }
  EXPECT_EQ(covered, 17u);
}

TEST_F(SweepTest, FailingCellIsReportedAndNothingIsWritten) {
  SweepOptions o;
  o.threads = 2;
  run(toy_sweep(10, 4), o, "fail.csv", 1);
  EXPECT_FALSE(fs::exists(dir_ / "fail.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "fail.csv.meta.json"));
}

TEST_F(SweepTest, AFailingCellsExitCodeSaysWhoseFaultItIs) {
  // A planted internal error (a broken invariant) exits 3 and says so; bad
  // data found inside a cell exits 2; any other failure 1.
  const auto failing = [](std::function<void()> thrower) {
    Sweep s = toy_sweep(3);
    s.run_cell = [thrower](std::size_t) -> std::vector<CsvRow> {
      thrower();
      return {};
    };
    return s;
  };
  SweepOptions o;
  o.threads = 1;
  ::testing::internal::CaptureStderr();
  run(failing([] { throw std::logic_error("planted: cell returned 2 rows"); }), o, "a.csv", 3);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("internal error in cell 0"), std::string::npos) << err;
  EXPECT_NE(err.find("please report"), std::string::npos) << err;
  ::testing::internal::CaptureStderr();
  run(failing([] { throw InputError("q.npy holds a NaN"); }), o, "b.csv", 2);
  run(failing([] { throw std::runtime_error("disk full"); }), o, "c.csv", 1);
  ::testing::internal::GetCapturedStderr();
}

TEST_F(SweepTest, MemoryEstimateOverTheLimitRefusesBeforeWriting) {
  Sweep s = toy_sweep(4);
  s.memory_bytes = [](std::size_t c) { return (c + 1) * 1024.0 * 1024.0 * 1024.0; };
  SweepOptions o;
  o.out = (dir_ / "m.csv").string();
  o.threads = 2;
  o.max_memory_gib = 6.5;  // the two largest cells at once need 4 + 3 = 7 GiB
  try {
    run_sweep(s, o);
    ADD_FAILURE() << "not refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs about 7 GiB"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "m.csv.partial"));
  o.threads = 1;  // one at a time: 4 GiB fits
  o.quiet = true;
  EXPECT_EQ(run_sweep(s, o), 0);
}

TEST_F(SweepTest, BadOptionsAreUsageErrors) {
  SweepOptions o;
  std::ofstream(dir_ / "a-file") << "x";  // a folder that cannot be made
  o.out = (dir_ / "a-file" / "x.csv").string();
  EXPECT_THROW(run_sweep(toy_sweep(2), o), UsageError);
  o.out = (dir_ / "x.csv").string();
  for (const char* bad : {"0/2", "3/2", "1", "a/b", "1/2x", "-1/2"}) {
    o.shard = bad;
    EXPECT_THROW(run_sweep(toy_sweep(2), o), UsageError) << bad;
  }
  EXPECT_FALSE(fs::exists(dir_ / "x.csv"));
}

}  // namespace
}  // namespace poslsh
