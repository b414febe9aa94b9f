// Golden outputs: tables and sidecars poslsh wrote before its writers were
// unified (tests/data/golden/), and how a new output is compared with them.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "cli_harness.h"
#include "runner/run_record.h"

namespace poslsh {

inline std::filesystem::path golden_dir() {
  return std::filesystem::path(POSLSH_SOURCE_DIR) / "tests/data/golden";
}

// Expects `produced` to hold the bytes of the sidecar `golden` once the fields
// that describe the run rather than its result (when, where, by which build,
// with how many threads, from which shard paths) are taken from the golden.
inline void expect_same_sidecar(const std::string& golden, const std::string& produced) {
  const std::string expected = testing::slurp(golden);
  const RunRecord old = RunRecord::parse(expected, golden, "golden");
  RunRecord now = RunRecord::read(produced, "produced");
  for (const char* key : {"version", "git_commit", "finished_utc", "duration_seconds_this_run",
                          "machine", "threads", "merged_from"})
    if (old.has(key) && now.has(key)) now.copy(key, old);
  EXPECT_EQ(now.to_text(), expected) << produced << " vs " << golden;
}

// A CSV text (no quoted fields) with the named columns emptied: timing
// columns, the only bytes of a bench's table that differ between runs.
inline std::string blank_columns(const std::string& csv, const std::set<std::string>& names) {
  std::istringstream in(csv);
  std::string out, line;
  std::set<std::size_t> blank;
  for (bool header = true; std::getline(in, line); header = false) {
    std::istringstream fields(line);
    std::string field;
    for (std::size_t k = 0; std::getline(fields, field, ','); ++k) {
      if (header && names.count(field)) blank.insert(k);
      if (k > 0) out += ',';
      if (header || !blank.count(k)) out += field;
    }
    if (!line.empty() && line.back() == ',') out += ',';
    out += '\n';
  }
  return out;
}

}  // namespace poslsh
