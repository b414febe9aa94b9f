// Running poslsh (or a plot script) as a child process, as `reproduce` and
// `rerun` do: a child's exit code and its one-line errors pass through
// unchanged, and a crash in one section cannot take the parent's report down.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace poslsh {

// Runs args[0] with args (no shell, PATH lookup) and waits; returns its exit
// code, 128 + signal when it was killed, or 127 when it could not start.
// With `quiet`, the child's stdout and stderr go to /dev/null.
int run_child(const std::vector<std::string>& args, bool quiet = false);

// Runs every command of `jobs` at once and waits for all; returns their exit
// codes in order, each as run_child would.
std::vector<int> run_children(const std::vector<std::vector<std::string>>& jobs,
                              bool quiet = false);

// Waits for child `pid` (0: one that did not start): its exit code, 128 +
// signal when it was killed, 127 when it did not start.
int wait_child(pid_t pid);

// Whether `program` names an executable file, directly (with a '/') or on PATH.
bool on_path(const std::string& program);

// The running binary's path (/proc/self/exe), or "poslsh" when unknown.
std::string self_executable();

}  // namespace poslsh
