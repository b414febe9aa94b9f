// Outputs go where users point them (runner/atomic_file.h): "-" is standard
// output, a symlink is written through to its target, a FIFO or a device is
// streamed to and never replaced, and missing parent folders are created.
// Every missing required option is named at once.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <vector>
#include <string>

#include "cli_harness.h"
#include "experiments/checks/check_tally.h"

namespace poslsh::testing {
namespace {

namespace fs = std::filesystem;

const std::string kSample = "sample --n 64 --sigma 4 --s 3 --seed 7 --blocks --out ";
const std::string kSweep =
    "convergence --n 64 --sigma 4 --s 1 4 --trials 2 --seed 3 --no-timing --quiet --threads 1 "
    "--out ";

class OutputPathsCli : public CliTest {
 protected:
  // The table a plain file gets: what every other target must receive.
  std::string reference(const std::string& args) const {
    EXPECT_EQ(cli(args + path("reference.csv")).exit_code, 0);
    return slurp(path("reference.csv"));
  }
  // Runs `args` with the working directory set to the test's folder.
  CliResult cli_here(const std::string& args) const {
    return cli_in(dir_.string(), args);
  }
  CliResult cli_in(const std::string& cwd, const std::string& args) const {
    const std::string out = path(".stdout"), err = path(".stderr");
    const std::string cmd =
        "cd " + cwd + " && " + std::string(POSLSH_CLI) + " " + args + " >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  // The test folder's entries other than the harness's own files.
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string()[0] != '.') names.insert(e.path().filename().string());
    return names;
  }
};

TEST_F(OutputPathsCli, DashStreamsTheTableToStandardOutputAndWritesNoFile) {
  for (const std::string& args : {kSample, kSweep}) {
    const std::string expected = reference(args);
    fs::remove(path("reference.csv"));
    fs::remove(path("reference.csv.meta.json"));
    const CliResult r = cli_here(args + "-");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, expected) << args;
    EXPECT_NE(r.err.find("stream"), std::string::npos) << r.err;  // says where the sidecar went
    EXPECT_TRUE(entries().empty()) << args << ": wrote " << *entries().begin();
  }
}

TEST_F(OutputPathsCli, ResumeIntoAStreamIsRefused) {
  expect_usage_error(kSweep + "- --resume", "--resume");
}

TEST_F(OutputPathsCli, ASymlinkIsWrittenThroughToItsTarget) {
  const std::string expected = reference(kSample);
  fs::create_directories(path("data"));
  std::ofstream(path("data/real.csv")) << "old contents\n";
  fs::create_symlink("data/real.csv", path("link.csv"));  // relative, as users make them
  fs::create_symlink("data/new.csv", path("dangling.csv"));
  for (const std::string link : {"link.csv", "dangling.csv"}) {
    const CliResult r = cli(kSample + path(link));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(path(link)))) << link << " was replaced";
    EXPECT_EQ(slurp(path(link)), expected) << link;
    EXPECT_TRUE(fs::exists(path(link + ".meta.json")));
  }
  EXPECT_EQ(slurp(path("data/real.csv")), expected);
  EXPECT_EQ(slurp(path("data/new.csv")), expected);
  for (const auto& e : fs::directory_iterator(path("data")))  // no temporary file left
    EXPECT_TRUE(e.path().filename() == "real.csv" || e.path().filename() == "new.csv")
        << e.path();
}

TEST_F(OutputPathsCli, AFifoIsStreamedToAndStaysAFifo) {
  for (const std::string& args : {kSample, kSweep}) {
    const std::string expected = reference(args);
    const std::string fifo = path("pipe");
    fs::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // The reader opens the FIFO as `cat pipe` would, while the command writes.
    auto read = std::async(std::launch::async, [&] { return slurp(fifo); });
    const CliResult r = cli(args + fifo);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read.get(), expected) << args;
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
    EXPECT_FALSE(fs::exists(fifo + ".meta.json"));
    EXPECT_FALSE(fs::exists(fifo + ".partial"));
    EXPECT_FALSE(fs::exists(path("pipe.summary.csv")));
  }
}

TEST_F(OutputPathsCli, ADeviceIsWrittenAndNeverReplaced) {
  // /dev/null as a user (or root, as CI runs) would give it; nothing may
  // appear beside it.
  ASSERT_FALSE(fs::exists("/dev/null.meta.json"));
  const CliResult r = cli(kSample + "/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_FALSE(fs::exists("/dev/null.meta.json"));
  EXPECT_FALSE(fs::exists("/dev/null.partial"));
  // A link to a device (as /dev/stdout is) is streamed through, not replaced.
  fs::create_symlink("/dev/null", path("to-null"));
  ASSERT_EQ(cli(kSweep + path("to-null")).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(path("to-null"))));
  EXPECT_FALSE(fs::exists(path("to-null.meta.json")));
}

TEST_F(OutputPathsCli, MissingParentFoldersAreCreated) {
  const std::string expected = reference(kSweep);
  const CliResult r = cli(kSweep + path("a/b/c/table.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(path("a/b/c/table.csv")), expected);
  EXPECT_TRUE(fs::exists(path("a/b/c/table.csv.meta.json")));
}

// Folders are made when the output is written: a run refused for its other
// options leaves none behind.
TEST_F(OutputPathsCli, ARefusedRunCreatesNoFolder) {
  // The memory estimate is checked after the output path (runner/sweep.cpp).
  expect_usage_error("convergence --n 4096 --sigma 4 --s 1 4 --trials 2 --max-memory 1e-9 "
                     "--out " + path("new/deeper/c.csv"),
                     "--max-memory");
  expect_usage_error("sample --n 8 --sigma 2 --s 0 --out " + path("new/s.csv"), "--s");
  EXPECT_FALSE(fs::exists(path("new")));
}

TEST_F(OutputPathsCli, AFolderOrAStreamWhereAFolderIsNeededIsRefused) {
  fs::create_directories(path("folder"));
  expect_usage_error(kSample + path("folder"), "is a folder");
  expect_usage_error("reproduce --config " + std::string(POSLSH_SOURCE_DIR) +
                         "/configs/default.toml --no-plots --out -",
                     "not a folder");
}

TEST_F(OutputPathsCli, EveryMissingRequiredOptionIsNamedInOneLine) {
  const CliResult r = cli("sample");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("missing required options --n, --sigma, --s, --out"), std::string::npos)
      << r.err;
  // The options given are not listed; one missing option is named alone.
  expect_usage_error("sample --n 8 --sigma 2 --s 1", "missing required option --out");
  expect_usage_error("merge", "missing required options --out, shards");
  expect_usage_error("check", "missing required option files");
  expect_usage_error("convergence --n 8", "--out");
}

// The options a subcommand's --help marks REQUIRED ("--out", or a positional's name).
std::vector<std::string> required_in_help(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);)
    if (line.find(" REQUIRED") != std::string::npos) {
      std::string name;
      std::istringstream(line) >> name;
      names.push_back(name.substr(name.rfind(',') + 1));  // "-n,--name" -> "--name"
    }
  return names;
}

// Every subcommand that requires options names all of them at once when
// given none, in its --help's order, in one line.
TEST_F(OutputPathsCli, EverySubcommandNamesAllItsMissingRequiredOptions) {
  std::vector<std::string> commands;
  for (const std::string& parent : {std::string(), std::string("bench ")}) {
    std::istringstream help(cli(parent + "--help").out);
    bool listing = false;
    for (std::string line; std::getline(help, line);) {
      if (line.rfind("Subcommands:", 0) == 0) listing = true;
      std::string name;
      if (listing && line.rfind("  ", 0) == 0 && (std::istringstream(line) >> name))
        if (name != "bench") commands.push_back(parent + name);
    }
  }
  ASSERT_GE(commands.size(), 15u);
  int with_required = 0;
  for (const auto& command : commands) {
    const auto required = required_in_help(cli(command + " --help").out);
    if (required.empty()) continue;  // would run: nothing to name
    ++with_required;
    expect_usage_error(command, "missing required option");
    const std::string err = cli(command).err;
    for (const auto& r : required)
      EXPECT_NE(err.find(" " + r), std::string::npos) << command << ": " << r << " in " << err;
    EXPECT_NE(err.find("see poslsh " + command + " --help"), std::string::npos) << err;
  }
  EXPECT_GE(with_required, 12) << "subcommands with required options";
}

// `check` says how many lines could not decide and what would decide them;
// --strict makes that a non-zero exit, as a CI job needs.
class StrictCheckCli : public CliTest {};

TEST_F(StrictCheckCli, ThreeTrialsCannotDecideTheRateAndStrictSaysSo) {
  ASSERT_EQ(cli("convergence --n 256 --sigma 4 --s 1:16:x2 --trials 3 --plant-defect zero-shift "
                "--quiet --out " + path("c.csv")).exit_code, 0);
  const CliResult plain = cli("check " + path("c.csv"));
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_NE(plain.out.find("could not decide: use >= 4 values of s >= 4"), std::string::npos)
      << plain.out;
  const CliResult strict = cli("check --strict " + path("c.csv"));
  EXPECT_EQ(strict.exit_code, 5) << strict.out << strict.err;
  EXPECT_EQ(std::count(strict.err.begin(), strict.err.end(), '\n'), 1) << strict.err;
  EXPECT_NE(strict.err.find("rate spectral"), std::string::npos) << strict.err;
  EXPECT_NE(strict.err.find("--trials >= "), std::string::npos) << strict.err;
}

// The tally's rule, line by line: a family is refused when it has an
// undecided line (one with a remedy) and no PASS or FAIL, per table (scope);
// info and n/a lines without a remedy decide nothing and refuse nothing.
TEST(StrictTally, AFamilyWithoutADecidingLineIsNamedPerTable) {
  CheckTally t;
  t.scope = "a.csv";
  count_outcome({"rate[n=1] max", Verdict::kNotApplicable, "few", "use --trials >= 15"}, t);
  count_outcome({"rate[n=2] max", Verdict::kPass, "ok"}, t);  // decides the family
  count_outcome({"law[x]", Verdict::kInfo, "untestable", "use --trials >= 30"}, t);
  count_outcome({"bound spectral", Verdict::kInfo, "not a test"}, t);  // no remedy
  t.scope = "b.csv";
  count_outcome({"rate[n=1] max", Verdict::kNotApplicable, "few", "use --trials >= 15"}, t);
  EXPECT_EQ(families_without_decision(t),
            (std::vector<std::string>{"a.csv: law", "b.csv: rate max"}));
  EXPECT_EQ(t.undecided, 3);
  EXPECT_NE(tally_line(t).find("; 3 could not decide: use --trials >= 15"), std::string::npos);
  CheckTally decided;
  count_outcome({"rate[n=2] max", Verdict::kFail, "bad"}, decided);
  EXPECT_TRUE(families_without_decision(decided).empty());
  EXPECT_EQ(tally_line(decided).find("could not decide"), std::string::npos);
}

TEST_F(StrictCheckCli, EnoughTrialsAndValuesOfSDecideAndPassStrict) {
  ASSERT_EQ(cli("convergence --n 256 --sigma 4 --s 1:32:x2 --trials 15 --quiet --out " +
                path("c.csv")).exit_code, 0);
  const CliResult r = cli("check --strict " + path("c.csv"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("could not decide"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace poslsh::testing
