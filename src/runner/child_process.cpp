#include "runner/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

extern char** environ;

namespace poslsh {

namespace {

// Starts args[0] (PATH lookup); returns its pid, or 0 when it could not start.
pid_t spawn_child(const std::vector<std::string>& args, bool quiet) {
  if (args.empty()) return 0;
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  pid_t pid = 0;
  const int started = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return started == 0 ? pid : 0;
}

}  // namespace

int wait_child(pid_t pid) {
  if (pid == 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int run_child(const std::vector<std::string>& args, bool quiet) {
  return wait_child(spawn_child(args, quiet));
}

std::vector<int> run_children(const std::vector<std::vector<std::string>>& jobs, bool quiet) {
  std::vector<pid_t> pids;
  for (const auto& job : jobs) pids.push_back(spawn_child(job, quiet));
  std::vector<int> codes;
  for (const pid_t pid : pids) codes.push_back(wait_child(pid));
  return codes;
}

bool on_path(const std::string& program) {
  if (program.empty()) return false;
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    const std::size_t colon = std::min(dirs.find(':', at), dirs.size());
    const std::string dir = colon > at ? dirs.substr(at, colon - at) : ".";
    if (::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    at = colon + 1;
  }
  return false;
}

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("poslsh") : p.string();
}

}  // namespace poslsh
