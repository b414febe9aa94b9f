// The files poslsh ships beside its binary: the plot scripts (plots/) and the
// scipy baseline of `bench convergence` (scripts/bench_scipy_eigsh.py).
//
// They are found relative to the running binary only, never through a path of
// the machine that built it, so an installed prefix works after the source
// tree is gone and after the prefix is moved:
//   - installed: <bin>/POSLSH_DATA_FROM_BIN, i.e. <prefix>/share/poslsh;
//   - build tree: <bin>/../share/poslsh, which the build links to the
//     sources' files (CMakeLists.txt), so a build runs what an install would.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace poslsh {

// The directories searched, in order (existing or not).
std::vector<std::filesystem::path> data_dirs();

// The first data directory that holds `relative` (e.g. "plots/plotlib.py"),
// or nothing.
std::optional<std::filesystem::path> find_data_dir(const std::filesystem::path& relative);

}  // namespace poslsh
