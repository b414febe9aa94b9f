// Output files appear whole or not at all, at the place the user points to.
//
// A file path: content goes to a temporary file beside the final target and is
// renamed over it on commit(); missing parent folders are created. A symlink
// is written through: the temporary file sits beside the link's final target
// and replaces the target, so the link itself stays a link.
// A stream: "-" (standard output) or an existing path that is not a regular
// file (a FIFO, a character device such as /dev/stdout or /dev/null, a socket).
// It is never replaced or renamed over; the content is held until commit()
// and then written to it in one go, so a failed run writes nothing there.
// An object destroyed without commit() removes its temporary file, so a failed
// or interrupted run never leaves a partial or corrupted result.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace poslsh {

class AtomicFile {
 public:
  // Opens the temporary file (a file path) or checks the stream is writable;
  // throws UsageError naming `option` (e.g. "--out") if it cannot be written.
  AtomicFile(std::string path, const std::string& option);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view text);
  // Flush, close and rename onto the target (or write the held content to the
  // stream); throws std::runtime_error on failure.
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, target_, tmp_, held_;
  std::FILE* file_ = nullptr;
  bool stream_ = false;
};

// Whether `path` names a stream: "-", or an existing path (after following
// symlinks) that is not a regular file or a folder.
bool is_stream_output(const std::string& path);

// The companion file a command writes beside its output `out` (the sidecar
// "<out>.meta.json", the resumable "<out>.partial"): `out` + `suffix`, or
// nothing when `out` is a stream, which carries the table alone.
std::optional<std::string> companion_path(const std::string& out, std::string_view suffix);

// The note on stderr that `who` wrote the stream `out` without its companions.
void say_stream_carries_the_table_alone(const std::string& who, const std::string& out);

// Throws UsageError naming `option` unless `path` can be written: a file
// (checked by creating and removing a temporary file beside its target, or,
// when its folder is missing, by the nearest existing folder being writable:
// nothing is created until the output is written) or a writable stream.
void require_writable(const std::string& option, const std::string& path);

// Whole file as a string; throws UsageError naming `option` if unreadable.
std::string read_file(const std::string& option, const std::string& path);

}  // namespace poslsh
