// A child that serves requests one after another (src/runner/worker_process.h):
// one child for many calls, the reply's code returned, a child that exits
// reported by its exit code and replaced at the next call, and a child that
// ends when its worker does. The children are small shell scripts speaking
// the protocol on file descriptor 3.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "runner/worker_process.h"

namespace poslsh {
namespace {

namespace fs = std::filesystem;

WorkerProcess shell_worker(const std::string& script) {
  return WorkerProcess({"/bin/sh", "-c", script});
}

// Replies how many requests this child has read: 1, 2, 3, ...
constexpr const char* kCounter =
    "n=0; while read -r line <&3; do n=$((n + 1)); echo $n >&3; done";

TEST(WorkerProcess, OneChildServesEveryCall) {
  WorkerProcess worker = shell_worker(kCounter);
  EXPECT_EQ(worker.call("a"), 1);
  EXPECT_EQ(worker.call("b"), 2);
  EXPECT_EQ(worker.call("c"), 3);
}

TEST(WorkerProcess, ReturnsTheCodeTheChildReplies) {
  WorkerProcess worker = shell_worker("while read -r line <&3; do echo \"$line\" >&3; done");
  EXPECT_EQ(worker.call("0"), 0);
  EXPECT_EQ(worker.call("2"), 2);
  EXPECT_EQ(worker.call("130"), 130);
}

TEST(WorkerProcess, AChildThatExitsGivesItsCodeAndIsReplacedAtTheNextCall) {
  // Request "die": exit 7 without a reply; otherwise count.
  WorkerProcess worker = shell_worker(
      "n=0; while read -r line <&3; do [ \"$line\" = die ] && exit 7; n=$((n + 1)); "
      "echo $n >&3; done");
  EXPECT_EQ(worker.call("a"), 1);
  EXPECT_EQ(worker.call("b"), 2);
  EXPECT_EQ(worker.call("die"), 7);
  EXPECT_EQ(worker.call("a"), 1) << "a new child, counting from 1";
}

TEST(WorkerProcess, AKilledChildGivesOneHundredTwentyEightPlusTheSignal) {
  WorkerProcess worker = shell_worker("read -r line <&3; kill -9 $$");
  EXPECT_EQ(worker.call("a"), 128 + 9);
}

TEST(WorkerProcess, AProgramThatCannotStartGivesOneHundredTwentySeven) {
  WorkerProcess worker({"/nonexistent/poslsh-worker"});
  EXPECT_EQ(worker.call("a"), 127);
  WorkerProcess none({});
  EXPECT_EQ(none.call("a"), 127);
}

TEST(WorkerProcess, AReplyThatIsNotACodeEndsTheChild) {
  WorkerProcess worker = shell_worker(
      "n=0; while read -r line <&3; do n=$((n + 1)); [ $n = 2 ] && echo nonsense >&3 || echo $n "
      ">&3; done");
  EXPECT_EQ(worker.call("a"), 1);
  EXPECT_EQ(worker.call("b"), 127);
  EXPECT_EQ(worker.call("c"), 1) << "a new child after the malformed reply";
}

TEST(WorkerProcess, TheChildEndsWithItsWorker) {
  const fs::path flag =
      fs::temp_directory_path() / ("poslsh_worker_ended_" + std::to_string(::getpid()));
  fs::remove(flag);
  {
    WorkerProcess worker =
        shell_worker(std::string(kCounter) + "; echo ended > '" + flag.string() + "'");
    EXPECT_EQ(worker.call("a"), 1);
    EXPECT_FALSE(fs::exists(flag));
  }  // the destructor closes the channel and waits for the child
  EXPECT_TRUE(fs::exists(flag));
  fs::remove(flag);
}

}  // namespace
}  // namespace poslsh
