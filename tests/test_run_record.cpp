// The provenance record (src/runner/run_record.h): its layout, its errors,
// and byte-for-byte agreement with the sidecars the hand-written writer of
// earlier versions produced (tests/data/golden/, written by poslsh at commit
// fc8d690 from tests/data/golden/tiny.toml with --no-timing --threads 1, and
// the fuzz corpus's sidecars); those old sidecars also still re-run.
#include <gtest/gtest.h>
#include <poslsh/input_error.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "golden_outputs.h"
#include "internal/printable.h"
#include "runner/run_record.h"

namespace poslsh {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> old_sidecars() {
  std::vector<fs::path> out;
  for (const fs::path& dir : {golden_dir(), fs::path(POSLSH_SOURCE_DIR) / "fuzz/corpus/meta"})
    for (const auto& entry : fs::recursive_directory_iterator(dir))
      if (entry.path().string().ends_with(".meta.json")) out.push_back(entry.path());
  EXPECT_GE(out.size(), 15u);
  return out;
}

TEST(RunRecord, EveryOldSidecarReadsBackAsItsOwnBytes) {
  for (const auto& path : old_sidecars()) {
    const std::string text = testing::slurp(path);
    EXPECT_EQ(RunRecord::parse(text, path.string(), "test").to_text(), text) << path;
  }
}

TEST(RunRecord, LayoutIsOneFieldPerLineInTheOrderSet) {
  RunRecord r;
  r.set("tool", "poslsh")
      .set("seed", std::uint64_t{18446744073709551615ULL})
      .set("timing", false)
      .set("duration_seconds_this_run", 1.5)
      .set("columns", std::vector<std::string>{"n", "s"})
      .set("none", std::vector<std::string>{})
      .set("tool", "again");  // replaced where it is
  EXPECT_EQ(r.to_text(),
            "{\n  \"tool\": \"again\",\n  \"seed\": 18446744073709551615,\n  \"timing\": false,\n"
            "  \"duration_seconds_this_run\": 1.500,\n  \"columns\": [\"n\", \"s\"],\n"
            "  \"none\": []\n}\n");
  const RunRecord back = RunRecord::parse(r.to_text(), "r.json", "test");
  EXPECT_EQ(back.number("seed"), 18446744073709551615ULL);
  EXPECT_FALSE(back.boolean("timing"));
  EXPECT_EQ(back.to_text(), r.to_text());
}

TEST(RunRecord, EveryUtf8StringRoundTripsOnOneLine) {
  std::string all;
  for (int c = 1; c < 128; ++c) all += static_cast<char>(c);
  all += "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";  // é € U+1F600
  const std::string text = RunRecord().set("config", all).to_text();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;
  EXPECT_EQ(RunRecord::parse(text, "x", "test").text("config"), all);
  // The escapes the earlier writer used read back too.
  EXPECT_EQ(RunRecord::parse(R"({"c": "\u0008\u000c\u00e9\ud83d\ude00\/"})", "x", "test").text("c"),
            "\b\f\xc3\xa9\xf0\x9f\x98\x80/");
}

TEST(RunRecord, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  // JSON text is UTF-8: a path in Latin-1 cannot be written as it is.
  const std::string text = RunRecord().set("config", "caf\xe9").to_text();
  EXPECT_EQ(RunRecord::parse(text, "x", "test").text("config"), "caf\xef\xbf\xbd");
}

void expect_input_error(const std::string& text, const std::string& key,
                        const std::string& message) {
  try {
    const RunRecord r = RunRecord::parse(text, "x.csv", "rerun");
    (void)r.text(key);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("rerun: 'x.csv' ", 0), 0u) << e.what();
  }
}

TEST(RunRecord, MalformedSidecarsAndMissingFieldsAreInputErrorsNamingTheFile) {
  const std::string good = testing::slurp(golden_dir() / "sample/hashes.csv.meta.json");
  expect_input_error(good.substr(0, 20), "seed", "is not a JSON sidecar");
  expect_input_error(good + "x", "seed", "is not a JSON sidecar");
  expect_input_error("[1, 2]", "seed", "is not a JSON object");
  expect_input_error("{\"config\": \"caf\xe9\"}", "config", "is not a JSON sidecar");
  expect_input_error("{}", "seed", "has no \"seed\" field");
  expect_input_error(good, "seed", "has a \"seed\" field that is not a string");
  try {
    RunRecord::parse("{\"seed\": -1}", "x.csv", "merge").number("seed");
    ADD_FAILURE() << "a negative seed was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "merge: 'x.csv' has a \"seed\" field that is not an integer >= 0");
  }
}

TEST(RunRecord, PrintableEscapesWhatWouldBreakAMessage) {
  EXPECT_EQ(detail::printable("ok"), "ok");
  EXPECT_EQ(detail::printable(std::string("a\nb\x1b[2J\xff", 8)), "a\\x0ab\\x1b[2J\\xff");
  EXPECT_EQ(detail::printable(std::string(50, 'x')), std::string(40, 'x') + "...");
}

class RunRecordCli : public testing::CliTest {};

// A sidecar the earlier writer produced runs again into the same table.
TEST_F(RunRecordCli, OldSidecarsStillRerun) {
  for (const std::string name : {"reproduce/convergence", "reproduce/unbiasedness", "sample/hashes",
                                 "sample/blocks"}) {
    SCOPED_TRACE(name);
    const fs::path old = golden_dir() / (name + ".csv");
    const std::string out = path("again.csv");
    const auto r = cli("rerun " + old.string() + ".meta.json --no-timing --quiet --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(testing::slurp(out), testing::slurp(old));
    expect_same_sidecar(old.string() + ".meta.json", out + ".meta.json");
  }
}

}  // namespace
}  // namespace poslsh
