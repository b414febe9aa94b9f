// libFuzzer target: poslsh_fuzz::fuzz_config (fuzz/config_entry.h). Build and run:
// scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "config_entry.h"
#include "sanitizer_defaults.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  poslsh_fuzz::fuzz_config(data, size);
  return 0;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::atexit([] { poslsh_fuzz::remove_config_scratch(); });
  return 0;
}
