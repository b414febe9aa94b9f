// The config a run records in its .meta.json runs again: fed back with
// --config it gives the same bytes (the point of recording it).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_harness.h"
#include "npy.h"

namespace poslsh {
namespace {

using Provenance = testing::CliTest;

// The "config" string of a .meta.json, unescaped.
std::string recorded_config(const std::string& meta) {
  const std::string tag = "\"config\": \"";
  const auto at = meta.rfind(tag);
  EXPECT_NE(at, std::string::npos) << meta;
  std::string out;
  for (std::size_t i = at + tag.size(); i < meta.size() && meta[i] != '"'; ++i) {
    if (meta[i] == '\\' && i + 1 < meta.size()) {
      const char e = meta[++i];
      out += e == 'n' ? '\n' : e;
    } else {
      out += meta[i];
    }
  }
  return out;
}

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
    const std::string config = recorded_config(testing::slurp(a + ".meta.json"));
    EXPECT_EQ(config.find("[["), std::string::npos) << config;
    std::ofstream(toml) << "[" << runs[k].experiment << "]\n" << config;
    const auto r =
        cli(runs[k].experiment + " --config " + toml + " --quiet --no-timing --out " + b);
    ASSERT_EQ(r.exit_code, 0) << r.err << "\n" << config;
    EXPECT_EQ(testing::slurp(a), testing::slurp(b));
  }
  // The tensors' checksums are part of the record (as comments).
  const std::string meta = testing::slurp(path("a2.csv.meta.json"));
  EXPECT_NE(meta.find("# q.npy fnv1a64 "), std::string::npos) << meta;
  EXPECT_NE(meta.find(path("tensors")), std::string::npos) << meta;  // absolute path
}

}  // namespace
}  // namespace poslsh
