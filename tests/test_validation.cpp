// Argument errors are checked once, in the core, and named by meaning there
// ("sigma must be ..."); the CLI names the flag, the Python module its
// parameter (tests/python/test_poslsh.py). These tests pin the core's side and
// the CLI's mapping.
#include <gtest/gtest.h>
#include <poslsh/poslsh.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <string>

#include "cli_harness.h"
#include "runner/cli_common.h"

namespace poslsh {
namespace {

// The ArgumentError `call` throws (the test fails when it throws none).
ArgumentError thrown_by(const std::function<void()>& call) {
  try {
    call();
  } catch (const ArgumentError& e) {
    return e;
  }
  ADD_FAILURE() << "no ArgumentError";
  return ArgumentError("none", "", "");
}

TEST(ArgumentErrors, CoreNamesTheArgumentByMeaning) {
  struct Case {
    std::function<void()> call;
    std::string argument, what;
  };
  const std::vector<Case> cases = {
      {[] { draw_hashes(0, 0, 4, -1.0); }, "sigma", "sigma must be a finite number > 0 (got -1)"},
      {[] { draw_hashes(0, 0, 0, 2.0); }, "s", "s must be an integer in [1, 2^31 - 1] (got 0)"},
      {[] { alibi_head_sigmas(0); }, "heads", "heads must be an integer >= 1 (got 0)"},
      {[] {
         block_starts(PositionalHash{-1.0, 0.0}, 8);
       },
       "pitch", "pitch must be a finite number > 0 (got -1)"},
      {[] {
         block_starts(PositionalHash{2.0, 2.5}, 8);
       },
       "shift", "shift must lie in [0, pitch] (got shift 2.5, pitch 2)"},
      {[] { MaskMean(0, draw_hashes(0, 0, 2, 2.0)); }, "n", "n must be an integer >= 1 (got 0)"},
      {[] { b_max(draw_hashes(0, 0, 2, 2.0), (std::int64_t{1} << 50) + 1); }, "n",
       "n must be an integer in [1, 2^50] (got 1125899906842625)"},
      {[] { resolve_threads(-1); }, "threads", "threads must be an integer >= 0 (got -1)"},
      {[] {
         SpectralErrorOptions o;
         o.starts = 9;
         validate_spectral_error_options(o);
       },
       "starts", "starts must be an integer in [1, 8] (got 9)"},
      {[] {
         SpectralErrorOptions o;
         o.rel_tol = 0;
         validate_spectral_error_options(o);
       },
       "rel_tol", "rel_tol must be a finite number > 0 (got 0)"},
      {[] {
         const RowMatrix<double> x = RowMatrix<double>::Ones(4, 2);
         BandAttentionOptions o;
         o.tol = 1;
         band_exact_attention<double>(x, x, x, 2.0, Form::kSymmetric, o);
       },
       "band_tol", "band_tol must be a number in [0, 1) (got 1)"},
  };
  for (const auto& c : cases) {
    const ArgumentError e = thrown_by(c.call);
    EXPECT_EQ(e.argument(), c.argument);
    EXPECT_EQ(std::string(e.what()), c.what);
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
  }
}

TEST(ArgumentErrors, AreInputErrorsAndRenameForAFrontEnd) {
  const ArgumentError e("sigma", "must be a finite number > 0", "nan");
  EXPECT_NE(dynamic_cast<const InputError*>(&e), nullptr);
  EXPECT_NE(dynamic_cast<const std::invalid_argument*>(&e), nullptr);
  EXPECT_EQ(e.message_for("--sigma"), "--sigma must be a finite number > 0 (got nan)");
  EXPECT_EQ(ArgumentError("q", "must be 2-D", "").message_for("query"), "query must be 2-D");
}

TEST(ArgumentErrors, CliMapsMeaningToFlagInOneTable) {
  EXPECT_EQ(flag_for("sigma"), "--sigma");
  EXPECT_EQ(flag_for("band_tol"), "--band-tol");
  EXPECT_EQ(flag_for("rel_tol"), "--spectral-tol");
  EXPECT_EQ(flag_for("heads"), "--alibi-heads");
  EXPECT_EQ(flag_for("pitch"), "");  // no flag sets a hash's pitch
}

TEST(ArgumentErrors, CliOptionChecksUseTheCoreWording) {
  try {
    require_positive_finite("--sigma", -1.0);
    ADD_FAILURE() << "accepted --sigma -1";
  } catch (const UsageError& e) {
    try {
      draw_hashes(0, 0, 1, -1.0);
    } catch (const ArgumentError& core) {
      EXPECT_EQ(std::string(e.what()), core.message_for("--sigma"));
    }
  }
}

// No core message names a CLI flag: a string literal in src/core holding
// "--" followed by a letter would.
TEST(ArgumentErrors, NoCoreMessageNamesAFlag) {
  const std::regex flag_in_literal(R"re("[^"\n]*--[a-z][^"\n]*")re");
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(POSLSH_SOURCE_DIR) / "src/core")) {
    if (entry.path().extension() != ".cpp" && entry.path().extension() != ".h") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      const auto code = line.substr(0, line.find("//"));
      EXPECT_FALSE(std::regex_search(code, flag_in_literal))
          << entry.path().filename().string() << ":" << number << ": " << line;
    }
  }
  EXPECT_GT(files, 10);
}

class ArgumentErrorsCli : public testing::CliTest {};

TEST_F(ArgumentErrorsCli, MessagesNameTheFlag) {
  expect_usage_error("sample --n 8 --sigma -1 --s 4 --out " + path("o.csv"),
                     "error: --sigma must be a finite number > 0 (got -1)");
  expect_usage_error("sample --n 8 --sigma 2 --s 0 --out " + path("o.csv"),
                     "error: --s must be an integer in [1, 2^31 - 1] (got 0)");
  // A count no draw can hold is the caller's mistake, not a failed allocation
  // (it was std::length_error, exit 3, before s had an upper bound).
  for (const char* command : {"sample --n 8 --sigma 2", "blocksize --n 64 --sigma 2",
                              "convergence --n 64 --sigma 2", "attention --n 64 --sigma 2"})
    expect_usage_error(std::string(command) + " --s 4611686018427387904 --out " + path("o.csv"),
                       "error: --s must be an integer in [1, 2^31 - 1] (got 4611686018427387904)");
  expect_usage_error("blocksize --n 64 --alibi-heads 0 --out " + path("o.csv"),
                     "error: --alibi-heads must be an integer >= 1 (got 0)");
}

}  // namespace
}  // namespace poslsh
