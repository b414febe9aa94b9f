// Exit codes tell whose fault an error is: the user's input (2) or a broken
// invariant inside poslsh (3), never one for the other.
#include <gtest/gtest.h>
#include <poslsh/band_attention.h>
#include <poslsh/input_error.h>
#include <poslsh/positional_hash.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/cli_app.h"
#include "experiments/experiment.h"
#include "runner/cli_common.h"

namespace poslsh {
namespace {

struct Reported {
  int code;
  std::string err;
};

Reported run(const std::function<int()>& action) {
  ::testing::internal::CaptureStderr();
  const int code = run_reporting_errors("poslsh test", action);
  return {code, ::testing::internal::GetCapturedStderr()};
}

TEST(ExitCodes, UserInputExitsTwo) {
  auto r = run([]() -> int { throw UsageError("--sigma must be > 0 (got -1)"); });
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "poslsh test: error: --sigma must be > 0 (got -1)\n");
  r = run([]() -> int { throw InputError("'q.npy': header says 3 axes"); });
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "poslsh test: error: 'q.npy': header says 3 axes\n");
}

TEST(ExitCodes, CoreArgumentErrorExitsTwoNamingTheFlag) {
  // The core names the argument by meaning; the CLI says which flag set it.
  auto r = run([]() -> int {
    const RowMatrix<double> x = RowMatrix<double>::Ones(4, 2);
    BandAttentionOptions o;
    o.tol = 1.5;
    band_exact_attention<double>(x, x, x, 2.0, Form::kSymmetric, o);
    return 0;
  });
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "poslsh test: error: --band-tol must be a number in [0, 1) (got 1.5)\n");
  // An argument no flag sets keeps its name by meaning.
  r = run([]() -> int { return static_cast<int>(block_starts({0.0, 0.0}, 8).size()); });
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "poslsh test: error: pitch must be a finite number > 0 (got 0)\n");
}

TEST(ExitCodes, PlantedInternalErrorExitsThreeAndSaysSo) {
  // A library precondition that reaches the CLI means the CLI failed to check
  // an option first: a poslsh bug, reported as such. So is a plain
  // std::invalid_argument (std::stoi's): poslsh's bad input is InputError.
  for (const auto& thrower : std::vector<std::function<int()>>{
           []() -> int { throw std::logic_error("ErrorOperator: lanes must be in [1, 8]"); },
           []() -> int { throw std::invalid_argument("stoi"); },
           []() -> int { throw std::logic_error("sweep: cell 3 returned 2 rows"); },
           []() -> int { throw std::out_of_range("map::at"); }}) {
    const auto r = run(thrower);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_EQ(r.err.rfind("poslsh test: internal error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("please report"), std::string::npos);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);  // one line
  }
}

// A checker with a bug, registered in this test's process only: on a table
// with a `planted_invariant` column (which no experiment writes) it reads the
// first value as a real checker reads its columns, so a value that is not a
// number is unusable input (InputError). Then it fails: on 1 an invariant of
// its own (std::logic_error), on 2 a std::stoi on text it should not have
// trusted (a plain std::invalid_argument, InputError's base, which a catch
// of that base would take for bad input).
void register_planted_checker() {
  static const bool registered = register_experiment({
      .name = "planted-invariant",
      .summary = "a checker whose invariant fails (tests/test_exit_codes.cpp)",
      .add_command = {},
      .add_bench = {},
      .checker = {.required_columns = {"planted_invariant"},
                  .run = [](const CsvTable& table, double) -> std::vector<CheckOutcome> {
                    if (table.number(0, "planted_invariant") == 2) (void)std::stoi("");
                    throw std::logic_error("planted: the checker's cells do not add up");
                  }},
  });
  ASSERT_TRUE(registered);
}

// `poslsh check FILE` run in this process (the planted checker is not in the
// installed binary): its exit code and stderr.
Reported check_table(const std::string& name, const std::string& csv) {
  const auto path =
      std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << csv;
  std::string program = "poslsh", command = "check", file = path.string();
  char* argv[] = {program.data(), command.data(), file.data()};
  ::testing::internal::CaptureStderr();
  const int code = run_cli(3, argv);
  std::fflush(stdout);
  Reported r{code, ::testing::internal::GetCapturedStderr()};
  std::filesystem::remove(path);
  return r;
}

TEST(ExitCodes, InvariantFailingInsideCheckExitsThreeNotTwo) {
  // Through the whole `poslsh check` path (check command, check_file, the
  // checker): a bug must not be reported as unusable input, which a catch of
  // std::invalid_argument (InputError's base) or of std::logic_error on the
  // way would do.
  register_planted_checker();
  const Reported bug = check_table("planted_bug", "planted_invariant\n1\n");
  EXPECT_EQ(bug.code, 3) << bug.err;
  EXPECT_EQ(bug.err,
            "poslsh check: internal error: planted: the checker's cells do not add up (a bug in "
            "poslsh, not in your input: please report it with the command line and the output "
            "of `poslsh --version`)\n");
  const Reported stoi = check_table("planted_stoi", "planted_invariant\n2\n");
  EXPECT_EQ(stoi.code, 3) << stoi.err;
  EXPECT_EQ(stoi.err.rfind("poslsh check: internal error: stoi (a bug in poslsh", 0), 0u)
      << stoi.err;
  // Negative control: the same checker on unusable data is the user's error,
  // named with the file, exit 2.
  const Reported input = check_table("planted_input", "planted_invariant\nx\n");
  EXPECT_EQ(input.code, 2) << input.err;
  EXPECT_EQ(input.err.rfind("poslsh check: error: '", 0), 0u) << input.err;
  EXPECT_NE(input.err.find("(planted-invariant table) is unusable: "), std::string::npos)
      << input.err;
  EXPECT_NE(input.err.find("'x' is not a number"), std::string::npos) << input.err;
  EXPECT_EQ(input.err.find('\n'), input.err.size() - 1);  // one line
}

TEST(ExitCodes, RunFailuresExitOneAndResultsPassThrough) {
  auto r = run([]() -> int { throw std::runtime_error("could not write 'a.csv': disk full"); });
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "poslsh test: failed: could not write 'a.csv': disk full\n");
  r = run([]() -> int { throw std::bad_alloc(); });
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(run([] { return 0; }).code, 0);
  EXPECT_EQ(run([] { return 1; }).code, 1);
  // Multi-line messages are printed as one line.
  r = run([]() -> int { throw InputError("first\nsecond\n"); });
  EXPECT_EQ(r.err, "poslsh test: error: first second\n");
}

}  // namespace
}  // namespace poslsh
