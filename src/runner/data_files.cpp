#include "runner/data_files.h"

#include "runner/child_process.h"

// The data directory relative to the binary's directory once installed
// (CMAKE_INSTALL_BINDIR to CMAKE_INSTALL_DATADIR/poslsh); CMakeLists.txt sets it.
#ifndef POSLSH_DATA_FROM_BIN
#define POSLSH_DATA_FROM_BIN "../share/poslsh"
#endif

namespace poslsh {

namespace fs = std::filesystem;

std::vector<fs::path> data_dirs() {
  const fs::path bin = fs::path(self_executable()).parent_path();
  std::vector<fs::path> dirs = {(bin / POSLSH_DATA_FROM_BIN).lexically_normal()};
  const fs::path build_tree = (bin / "../share/poslsh").lexically_normal();
  if (build_tree != dirs.front()) dirs.push_back(build_tree);
  return dirs;
}

std::optional<fs::path> find_data_dir(const fs::path& relative) {
  for (const fs::path& dir : data_dirs())
    if (fs::exists(dir / relative)) return dir;
  return std::nullopt;
}

}  // namespace poslsh
