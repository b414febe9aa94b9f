// Progress of a long run on stderr: a bar with cells done / total and an ETA
// when stderr is a terminal, a plain line at most every few seconds otherwise.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace poslsh {

class Progress {
 public:
  Progress(std::string what, std::size_t total, bool quiet);
  void advance(std::size_t cells = 1);  // not thread-safe: call under the caller's lock
  void finish();

 private:
  void print(bool final);
  std::string what_;
  std::size_t total_, done_ = 0;
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

std::string format_duration(double seconds);

}  // namespace poslsh
