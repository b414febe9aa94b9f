// The four fuzz targets' entries as plain functions, compiled once into the
// fuzz library (fuzz/entry_points.cpp) rather than once per target: the
// entries (fuzz/entries.h) instantiate CLI11 and the checkers' templates,
// instrumented compilation worth doing once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace poslsh_fuzz {

void run_npy(const std::uint8_t* data, std::size_t size);
void run_csv(const std::uint8_t* data, std::size_t size);
void run_meta(const std::uint8_t* data, std::size_t size);
void run_config(const std::uint8_t* data, std::size_t size);
// Removes the scratch file run_config writes its input to.
void remove_config_scratch_file();

}  // namespace poslsh_fuzz
