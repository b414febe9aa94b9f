// libFuzzer target: poslsh_fuzz::fuzz_meta (fuzz/entries.h, reached through
// fuzz/entry_points.h). Build and run: scripts/fuzz.
#include <cstddef>
#include <cstdint>

#include "entry_points.h"
#include "sanitizer_defaults.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  poslsh_fuzz::run_meta(data, size);
  return 0;
}
