// Exit codes tell whose fault an error is: the user's input (2) or a broken
// invariant inside poslsh (3), never one for the other.
#include <gtest/gtest.h>
#include <poslsh/band_attention.h>
#include <poslsh/input_error.h>
#include <poslsh/positional_hash.h>

#include <new>
#include <stdexcept>

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
  // an option first: a poslsh bug, reported as such.
  for (const auto& thrower : std::vector<std::function<int()>>{
           []() -> int { throw std::invalid_argument("ErrorOperator: lanes must be in [1, 8]"); },
           []() -> int { throw std::logic_error("sweep: cell 3 returned 2 rows"); },
           []() -> int { throw std::out_of_range("map::at"); }}) {
    const auto r = run(thrower);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_EQ(r.err.rfind("poslsh test: internal error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("please report"), std::string::npos);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);  // one line
  }
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
