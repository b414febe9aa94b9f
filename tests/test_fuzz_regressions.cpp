// Replays the fuzz corpora (fuzz/corpus/<target>/, valid files) and the inputs
// fuzzing found (fuzz/regressions/<target>/) through the same entry logic the
// libFuzzer targets run (fuzz/<target>_entry.h), under the normal build: no clang
// needed. An input fails the test when its entry lets an exception other than
// the documented "unusable input" types escape (a crash or an abort ends the
// test binary, which ctest reports as a failure too); a corpus file fails it
// when the reader does not accept it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <typeinfo>
#include <vector>

#include "../fuzz/config_entry.h"
#include "../fuzz/csv_entry.h"
#include "../fuzz/meta_entry.h"
#include "../fuzz/npy_entry.h"

namespace poslsh_fuzz {
namespace {

namespace fs = std::filesystem;

fs::path fuzz_dir() { return fs::path(POSLSH_SOURCE_DIR) / "fuzz"; }

std::vector<fs::path> inputs(const std::string& kind, const std::string& target) {
  std::vector<fs::path> out;
  const fs::path dir = fuzz_dir() / kind / target;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().front() != '.') out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs entry on the file; on an unexpected exception records a failure naming
// the file and the exception and returns false.
template <class Result>
bool replay(const fs::path& file, Result (*entry)(const std::uint8_t*, std::size_t),
            Result* result) {
  const std::string bytes = slurp(file);
  try {
    *result = entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    return true;
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": unexpected " << typeid(e).name() << ": " << e.what();
  } catch (...) {
    ADD_FAILURE() << file << ": unexpected exception of a non-std type";
  }
  return false;
}

// The fuzz targets link the library (apps/cli_app.h and the rest) and
// so fuzz the code the CLI runs; none compiles a copy of a source file.
TEST(FuzzRegressions, FuzzSourcesIncludeNoCppFile) {
  const std::regex includes_cpp(R"(#\s*include\s*["<][^">]*\.cpp[">])");
  int scanned = 0;
  for (const auto& entry : fs::directory_iterator(fuzz_dir())) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp") continue;
    ++scanned;
    std::ifstream in(entry.path());
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    EXPECT_FALSE(std::regex_search(text, includes_cpp)) << entry.path();
  }
  EXPECT_GE(scanned, 9);
}

TEST(FuzzRegressions, CorporaAreInTheTree) {
  for (const char* target : {"npy", "csv", "meta", "config"})
    EXPECT_GE(inputs("corpus", target).size(), 3u) << "fuzz/corpus/" << target;
}

TEST(FuzzRegressions, NpyCorpusIsAccepted) {
  for (const auto& f : inputs("corpus", "npy")) {
    NpyResult r;
    if (!replay(f, fuzz_npy, &r)) continue;
    EXPECT_TRUE(r.accepted) << f << ": " << r.error;
  }
}

TEST(FuzzRegressions, CsvCorpusParsesAndOneCheckerRunsOnIt) {
  for (const auto& f : inputs("corpus", "csv")) {
    CsvResult r;
    if (!replay(f, fuzz_csv, &r)) continue;
    EXPECT_TRUE(r.parsed) << f;
    EXPECT_GE(r.rows, 1u) << f;
    EXPECT_GE(r.checkers_ran, 1) << f << ": no registered checker accepted this table";
  }
}

TEST(FuzzRegressions, MetaCorpusIsAccepted) {
  for (const auto& f : inputs("corpus", "meta")) {
    MetaResult r;
    if (!replay(f, fuzz_meta, &r)) continue;
    EXPECT_TRUE(r.accepted) << f;
    EXPECT_FALSE(r.experiment.empty()) << f;
    EXPECT_FALSE(r.config.empty()) << f;
  }
}

TEST(FuzzRegressions, ConfigCorpusParsesForEverySection) {
  for (const auto& f : inputs("corpus", "config")) {
    ConfigResult r;
    if (!replay(f, fuzz_config, &r)) continue;
    EXPECT_GE(r.tried, 1) << f;
    EXPECT_EQ(r.parsed, r.tried) << f << ": a section of a shipped config did not parse: "
                                 << r.first_error;
  }
  remove_config_scratch();
}

TEST(FuzzRegressions, RegressionInputsAreHandled) {
  for (const auto& f : inputs("regressions", "npy")) {
    NpyResult r;
    replay(f, fuzz_npy, &r);
  }
  for (const auto& f : inputs("regressions", "csv")) {
    CsvResult r;
    replay(f, fuzz_csv, &r);
  }
  for (const auto& f : inputs("regressions", "meta")) {
    MetaResult r;
    replay(f, fuzz_meta, &r);
  }
  for (const auto& f : inputs("regressions", "config")) {
    ConfigResult r;
    replay(f, fuzz_config, &r);
  }
  remove_config_scratch();
}

// A header of many distinct names is read in linear time (a pairwise
// duplicate scan took 20 s for 10^5 names; 2 * 10^5 would take over a minute).
TEST(FuzzRegressions, CsvHeaderOfManyNamesIsReadInLinearTime) {
  std::string header;
  for (int i = 0; i < 200000; ++i) header += "c" + std::to_string(i) + ",";
  header += "c7\n";
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)poslsh::CsvTable::parse(header, "wide.csv");
    ADD_FAILURE() << "the repeated column c7 was accepted";
  } catch (const poslsh::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("column 'c7' appears twice (columns 8 and 200001)"),
              std::string::npos)
        << e.what();
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took.count(), 10.0);
}

// The entries tell the documented rejections from the rest: the replay above
// can fail.
TEST(FuzzRegressions, EntriesRejectBadInputTheDocumentedWay) {
  const std::string not_npy = "\x93NUMPX";
  const auto npy = fuzz_npy(reinterpret_cast<const std::uint8_t*>(not_npy.data()), not_npy.size());
  EXPECT_FALSE(npy.accepted);
  EXPECT_NE(npy.error.find("bad magic"), std::string::npos) << npy.error;
  const std::string ragged = "a,b\n1\n";
  EXPECT_FALSE(
      fuzz_csv(reinterpret_cast<const std::uint8_t*>(ragged.data()), ragged.size()).parsed);
  const std::string meta =
      "{\"experiment\": \"x\", \"config_fingerprint\": \"1\", \"shard\": \"3/2\"}";
  EXPECT_FALSE(fuzz_meta(reinterpret_cast<const std::uint8_t*>(meta.data()), meta.size()).accepted);
  EXPECT_TRUE(expected_rejection(std::make_exception_ptr(poslsh::InputError("x"))));
  EXPECT_TRUE(expected_rejection(std::make_exception_ptr(poslsh::UsageError("x"))));
  EXPECT_FALSE(expected_rejection(std::make_exception_ptr(std::out_of_range("x"))));
  EXPECT_FALSE(expected_rejection(std::make_exception_ptr(std::runtime_error("x"))));
  EXPECT_FALSE(expected_rejection(std::make_exception_ptr(InvariantViolation("x"))));
}

}  // namespace
}  // namespace poslsh_fuzz
