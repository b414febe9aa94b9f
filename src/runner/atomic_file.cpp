#include "runner/atomic_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runner/cli_common.h"

namespace poslsh {

AtomicFile::AtomicFile(std::string path, const std::string& option) : path_(std::move(path)) {
  if (path_.empty()) throw UsageError(fmt::format("{} needs a file path", option));
  tmp_ = fmt::format("{}.tmp.{}", path_, ::getpid());
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
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw std::runtime_error(fmt::format("writing '{}' failed: {}", tmp_, std::strerror(errno)));
}

void AtomicFile::commit() {
  const bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  std::fclose(file_);
  file_ = nullptr;
  if (!ok || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp_.c_str());
    throw std::runtime_error(fmt::format("could not write '{}': {}", path_, why));
  }
}

void require_writable(const std::string& option, const std::string& path) {
  AtomicFile probe(path, option);  // destructor removes the probe
}

std::string read_file(const std::string& option, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{} '{}' is not readable", option, path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace poslsh
