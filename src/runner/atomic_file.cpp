#include "runner/atomic_file.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runner/cli_common.h"

namespace poslsh {

namespace fs = std::filesystem;

namespace {

// The path a chain of symlinks ends at (the path itself when it is no link);
// the final target need not exist. Throws UsageError naming `option` on a loop.
fs::path final_target(const std::string& option, const std::string& path) {
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) break;
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  throw UsageError(fmt::format("{} '{}' is a chain of symlinks that does not end", option, path));
}

// Creates the folders above `target`; throws UsageError naming `option` if it cannot.
void create_parent_folders(const std::string& option, const std::string& path,
                           const fs::path& target) {
  const fs::path parent = target.parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec)
    throw UsageError(fmt::format("{} '{}' is not writable: cannot create its folder '{}': {}",
                                 option, path, parent.string(), ec.message()));
}

void write_all(std::FILE* f, std::string_view text, const std::string& what) {
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0)
    throw std::runtime_error(fmt::format("writing '{}' failed: {}", what, std::strerror(errno)));
}

}  // namespace

bool is_stream_output(const std::string& path) {
  if (path == "-") return true;
  struct stat st {};
  // stat follows symlinks: a link to /dev/null is a stream, a dangling link is not.
  if (::stat(path.c_str(), &st) != 0) return false;
  return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::optional<std::string> companion_path(const std::string& out, std::string_view suffix) {
  if (is_stream_output(out)) return std::nullopt;
  return out + std::string(suffix);
}

AtomicFile::AtomicFile(std::string path, const std::string& option) : path_(std::move(path)) {
  if (path_.empty()) throw UsageError(fmt::format("{} needs a file path (or - for standard output)", option));
  if (is_stream_output(path_)) {
    stream_ = true;
    if (path_ != "-" && ::access(path_.c_str(), W_OK) != 0)
      throw UsageError(
          fmt::format("{} '{}' is not writable: {}", option, path_, std::strerror(errno)));
    return;
  }
  if (fs::is_directory(path_))
    throw UsageError(fmt::format("{} '{}' is a folder; give a file path", option, path_));
  const fs::path target = final_target(option, path_);
  create_parent_folders(option, path_, target);
  target_ = target.string();
  tmp_ = fmt::format("{}.tmp.{}", target_, ::getpid());
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_)
    throw UsageError(
        fmt::format("{} '{}' is not writable: {}", option, path_, std::strerror(errno)));
}

AtomicFile::~AtomicFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(tmp_.c_str());
  }
}

void AtomicFile::write(std::string_view text) {
  if (stream_) {
    held_.append(text);
    return;
  }
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw std::runtime_error(fmt::format("writing '{}' failed: {}", tmp_, std::strerror(errno)));
}

void AtomicFile::commit() {
  if (stream_) {
    if (path_ == "-") return write_all(stdout, held_, "standard output");
    // Opening a FIFO waits for its reader, as `cat > fifo` does.
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f) throw std::runtime_error(fmt::format("could not open '{}': {}", path_, std::strerror(errno)));
    try {
      write_all(f, held_, path_);
    } catch (...) {
      std::fclose(f);
      throw;
    }
    std::fclose(f);
    return;
  }
  const bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  std::fclose(file_);
  file_ = nullptr;
  if (!ok || std::rename(tmp_.c_str(), target_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp_.c_str());
    throw std::runtime_error(fmt::format("could not write '{}': {}", path_, why));
  }
}

void say_stream_carries_the_table_alone(const std::string& who, const std::string& out) {
  std::fprintf(stderr,
               "%s: --out %s is a stream: it gets the table alone (no .meta.json sidecar, "
               "summary or .partial file; give --out a file path for those)\n",
               who.c_str(), out.c_str());
}

void require_writable(const std::string& option, const std::string& path) {
  const fs::path parent =
      is_stream_output(path) ? fs::path() : final_target(option, path).parent_path();
  if (parent.empty() || fs::exists(parent)) {
    AtomicFile probe(path, option);  // destructor removes the probe
    return;
  }
  // Missing folders are made when the output is written, not here: a run
  // refused after this check leaves no folder behind.
  fs::path ancestor = parent;
  while (!ancestor.empty() && !fs::exists(ancestor)) ancestor = ancestor.parent_path();
  if (ancestor.empty()) ancestor = ".";
  if (!fs::is_directory(ancestor) || ::access(ancestor.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("{} '{}' is not writable: cannot create its folder under '{}'",
                                 option, path, ancestor.string()));
}

std::string read_file(const std::string& option, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{} '{}' is not readable", option, path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace poslsh
