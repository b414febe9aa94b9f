// libFuzzer target: poslsh_fuzz::fuzz_meta (fuzz/meta_entry.h). Build and run:
// scripts/fuzz.
#include <cstddef>
#include <cstdint>

#include "meta_entry.h"
#include "sanitizer_defaults.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  poslsh_fuzz::fuzz_meta(data, size);
  return 0;
}
