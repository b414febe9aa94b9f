// Output files appear whole or not at all: content goes to a temporary file
// beside the target and is renamed over it on commit(). An object destroyed
// without commit() removes its temporary file, so a failed or interrupted run
// never leaves a partial or corrupted result under the target's name.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace poslsh {

class AtomicFile {
 public:
  // Opens the temporary file; throws UsageError naming `option` (e.g. "--out")
  // if the target's directory is not writable.
  AtomicFile(std::string path, const std::string& option);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view text);
  // Flush, close and rename onto the target; throws std::runtime_error on failure.
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_;
  std::FILE* file_ = nullptr;
};

// Throws UsageError naming `option` unless a file can be created at `path`
// (checked by creating and removing a temporary file beside it).
void require_writable(const std::string& option, const std::string& path);

// Whole file as a string; throws UsageError naming `option` if unreadable.
std::string read_file(const std::string& option, const std::string& path);

}  // namespace poslsh
