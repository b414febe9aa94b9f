// The translation unit of the fuzz library that compiles fuzz/entries.h: see
// fuzz/entry_points.h.
#include "entry_points.h"

#include "entries.h"

namespace poslsh_fuzz {

void run_npy(const std::uint8_t* data, std::size_t size) { fuzz_npy(data, size); }
void run_csv(const std::uint8_t* data, std::size_t size) { fuzz_csv(data, size); }
void run_meta(const std::uint8_t* data, std::size_t size) { fuzz_meta(data, size); }
void run_config(const std::uint8_t* data, std::size_t size) { fuzz_config(data, size); }
void remove_config_scratch_file() { remove_config_scratch(); }

}  // namespace poslsh_fuzz
