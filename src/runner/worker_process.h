// A child process that serves requests one after another, for work whose
// start-up costs more than the work (a Python interpreter importing torch
// for each of an experiment's small cells). One request and one reply at a
// time, each a line on a socket that is the child's file descriptor 3; the
// child's stdin, stdout and stderr are the parent's, as run_child's are.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace poslsh {

class WorkerProcess {
 public:
  // args: the command (PATH lookup), started at the first call. With
  // `quiet`, its stdout and stderr go to /dev/null.
  explicit WorkerProcess(std::vector<std::string> args, bool quiet = false);
  // Closes the socket (the child's cue to exit) and waits for the child.
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends `request` (one line: no '\n' inside) and waits for the reply line,
  // a decimal exit code, which it returns. When the child exits instead, or
  // cannot start, returns what run_child would (its exit code, 128 + signal,
  // 127), and the next call starts a new child.
  int call(const std::string& request);

 private:
  bool start();
  int stop();

  std::vector<std::string> args_;
  bool quiet_;
  pid_t pid_ = 0;
  int socket_ = -1;
  std::string pending_;  // bytes read past the last reply
};

}  // namespace poslsh
