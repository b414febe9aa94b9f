#include "runner/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace poslsh {

std::string format_duration(double s) {
  if (!(s >= 0) || s > 1e7) return "?";
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

Progress::Progress(std::string what, std::size_t total, bool quiet)
    : what_(std::move(what)),
      total_(total),
      quiet_(quiet || total == 0),
      tty_(::isatty(2) != 0),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

void Progress::advance(std::size_t cells) {
  done_ += cells;
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_print_).count();
  if ((tty_ && since >= 0.1) || since >= 5.0 || done_ == total_) print(false);
}

void Progress::finish() {
  if (!quiet_ && tty_) std::fputc('\n', stderr);
}

void Progress::print(bool) {
  last_print_ = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(last_print_ - start_).count();
  const double eta = done_ ? elapsed * static_cast<double>(total_ - done_) / done_ : -1;
  const int pct = static_cast<int>(100.0 * done_ / total_);
  if (tty_) {
    const int width = 30, filled = width * static_cast<int>(done_) / static_cast<int>(total_);
    std::fprintf(stderr, "\r%s [%s%s] %zu/%zu cells  elapsed %s  ETA %s   ", what_.c_str(),
                 std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(), done_,
                 total_, format_duration(elapsed).c_str(), format_duration(eta).c_str());
  } else {
    std::fprintf(stderr, "%s: %zu/%zu cells (%d%%), elapsed %s, ETA %s\n", what_.c_str(), done_,
                 total_, pct, format_duration(elapsed).c_str(), format_duration(eta).c_str());
  }
  std::fflush(stderr);
}

}  // namespace poslsh
