// libFuzzer target: poslsh_fuzz::fuzz_config (fuzz/entries.h, reached through
// fuzz/entry_points.h). Build and run: scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "entry_points.h"
#include "sanitizer_defaults.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  poslsh_fuzz::run_config(data, size);
  return 0;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::atexit([] { poslsh_fuzz::remove_config_scratch_file(); });
  return 0;
}
