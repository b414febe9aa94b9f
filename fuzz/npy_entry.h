// fuzz_npy: parse_npy and parse_head_stack_npy (src/core/npy.cpp).
#pragma once

#include <poslsh/input_error.h>
#include <poslsh/npy.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "entry_common.h"

namespace poslsh_fuzz {

struct NpyResult {
  bool accepted = false;    // parse_npy returned an array
  bool head_stack = false;  // parse_head_stack_npy returned a stack
  std::string error;        // the rejection message, if any
};

// parse_npy (the reader behind read_npy) and parse_head_stack_npy (behind
// read_head_stack_npy: --qkv q.npy, k.npy, v.npy).
inline NpyResult fuzz_npy(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string name = "fuzz.npy";
  NpyResult r;
  try {
    const poslsh::NpyArray a = poslsh::parse_npy(bytes, name);
    r.accepted = true;
    std::uint64_t count = 1;
    for (const std::int64_t dim : a.shape) {
      if (dim < 1) invariant_failed("parse_npy accepted a dimension < 1");
      count *= static_cast<std::uint64_t>(dim);
    }
    if (a.shape.empty() || count != a.data.size())
      invariant_failed("parse_npy: data size differs from the product of the shape");
  } catch (const poslsh::InputError& e) {
    r.error = e.what();
  }
  try {
    const poslsh::HeadStack<double> h = poslsh::parse_head_stack_npy(bytes, name);
    r.head_stack = true;
    if (h.heads < 1 || h.data.rows() % h.heads != 0)
      invariant_failed("parse_head_stack_npy: rows not a multiple of heads");
  } catch (const poslsh::InputError& e) {
    if (r.error.empty()) r.error = e.what();
  }
  // Every message is one line that names the file; header text it quotes is
  // escaped (no control byte reaches the terminal).
  if (!r.error.empty()) {
    bool printable = true;
    for (const char c : r.error)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) printable = false;
    if (r.error.rfind(name + ": ", 0) != 0 || !printable)
      invariant_failed("a .npy error message must be one printable line naming the file: " +
                       r.error);
  }
  return r;
}

}  // namespace poslsh_fuzz
