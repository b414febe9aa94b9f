#include "runner/worker_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "runner/child_process.h"

extern char** environ;

namespace poslsh {

namespace {

constexpr int kChildSocket = 3;  // the child's end, as its file descriptor 3

// Writes all of `text`; false when the child is gone. MSG_NOSIGNAL: a child
// that died is an exit code to report, not a SIGPIPE that ends poslsh.
bool send_all(int fd, const std::string& text) {
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

WorkerProcess::WorkerProcess(std::vector<std::string> args, bool quiet)
    : args_(std::move(args)), quiet_(quiet) {}

WorkerProcess::~WorkerProcess() { stop(); }

bool WorkerProcess::start() {
  int ends[2];
  // Close-on-exec: no other child started meanwhile holds a copy, so closing
  // ours is an end of input the child sees.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return false;
  std::vector<char*> argv;
  for (const auto& a : args_) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, ends[1], kChildSocket);  // dup2 clears close-on-exec
  if (quiet_) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  pid_t pid = 0;
  const int started = args_.empty() ? ENOENT
                                    : posix_spawnp(&pid, argv[0], &actions, nullptr,
                                                   argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(ends[1]);
  if (started != 0) {
    ::close(ends[0]);
    return false;
  }
  pid_ = pid;
  socket_ = ends[0];
  pending_.clear();
  return true;
}

int WorkerProcess::stop() {
  if (socket_ >= 0) ::close(socket_);
  socket_ = -1;
  const int code = wait_child(pid_);
  pid_ = 0;
  return code;
}

int WorkerProcess::call(const std::string& request) {
  if (pid_ == 0 && !start()) return 127;
  if (!send_all(socket_, request + "\n")) return stop();
  std::size_t end;
  while ((end = pending_.find('\n')) == std::string::npos) {
    char buffer[256];
    const ssize_t n = ::recv(socket_, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return stop();  // the child exited (or closed its end): its code
    pending_.append(buffer, static_cast<std::size_t>(n));
  }
  int code = 0;
  const auto [at, ec] = std::from_chars(pending_.data(), pending_.data() + end, code);
  const bool well_formed = ec == std::errc() && at == pending_.data() + end;
  pending_.erase(0, end + 1);
  if (!well_formed) {  // not this protocol's child: end it and report it
    stop();
    return 127;
  }
  return code;
}

}  // namespace poslsh
