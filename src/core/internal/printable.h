// Text from an input file echoed in an error message, made safe to print.
// Not installed: the core's readers (npy.cpp) and every layer above it (the
// runner's tables and sidecars, the experiments' checks, the CLI) word their
// InputErrors with it, and a user of the library has no use for it. One of
// the core's in-tree headers ("internal/NAME.h", docs/ARCHITECTURE.md).
#pragma once

#include <string>
#include <string_view>

namespace poslsh::detail {

// At most `max` bytes of `text`, control and non-ASCII bytes as \xNN, so that
// a hostile file cannot break the message's single line or send escape
// sequences to the terminal.
inline std::string printable(std::string_view text, std::size_t max = 40) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

}  // namespace poslsh::detail
