// Runs the poslsh binary as a user would, for end-to-end tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace poslsh::testing {

struct CliResult {
  int exit_code;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh temporary directory per test, removed afterwards. The process id
// keeps two test runs on one machine (two build trees, or a Release and a
// sanitizer pass at once) out of each other's files.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("poslsh_cli_") + info->test_suite_name() + "_" + info->name() +
                       "_" + std::to_string(::getpid());
    std::replace(name.begin(), name.end(), '/', '_');  // parameterised names: one level
    dir_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  CliResult cli(const std::string& args) const {
    const std::string out = path(".stdout"), err = path(".stderr");
    const std::string cmd = std::string(POSLSH_CLI) + " " + args + " >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }

  // Exit code 2, exactly one line on stderr that mentions `mention`.
  void expect_usage_error(const std::string& args, const std::string& mention) const {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  }

  // Runs `args` (a sweep ending in "--out ") into one.csv with --threads 1 and
  // two.csv with --threads 2, and expects the same bytes: a table never
  // depends on the thread count.
  void expect_same_table_for_1_and_2_threads(const std::string& args) const {
    ASSERT_EQ(cli(args + path("one.csv") + " --threads 1").exit_code, 0);
    ASSERT_EQ(cli(args + path("two.csv") + " --threads 2").exit_code, 0);
    EXPECT_EQ(slurp(path("one.csv")), slurp(path("two.csv")));
  }

  // Runs `args` (a multi-head sweep, without --out) as shared.csv, then with
  // --independent-heads as one.csv (--threads 1), two.csv and again.csv
  // (--threads 2): the independent runs must be the same bytes for any thread
  // count and run, and differ from the shared run.
  void run_shared_and_independent_heads(const std::string& args) const {
    ASSERT_EQ(cli(args + "--out " + path("shared.csv")).exit_code, 0);
    ASSERT_EQ(cli(args + "--independent-heads --threads 1 --out " + path("one.csv")).exit_code, 0);
    ASSERT_EQ(cli(args + "--independent-heads --threads 2 --out " + path("two.csv")).exit_code, 0);
    ASSERT_EQ(cli(args + "--independent-heads --threads 2 --out " + path("again.csv")).exit_code,
              0);
    EXPECT_EQ(slurp(path("one.csv")), slurp(path("two.csv")));
    EXPECT_EQ(slurp(path("two.csv")), slurp(path("again.csv")));
    EXPECT_NE(slurp(path("one.csv")), slurp(path("shared.csv")));
  }

  std::filesystem::path dir_;
};

}  // namespace poslsh::testing
