// The error type for unusable data handed to poslsh: a file, table, tensor or
// sidecar that cannot be read or does not say what it must (the CLI prints it
// as one line and exits 2, Python raises ValueError). It derives from
// std::invalid_argument, the standard type for a bad argument, so a library
// caller may catch either; poslsh itself catches InputError by name, never
// std::invalid_argument. A broken invariant or precondition, which no input
// can cause, is a std::logic_error that is not an InputError (exit 3,
// RuntimeError in Python): a bug in poslsh or in the C++ code calling it
// (docs/ARCHITECTURE.md, "Errors").
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace poslsh {

class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {

// Text from an input file echoed in a message: at most `max` bytes, control
// and non-ASCII bytes as \xNN, so that a hostile file cannot break the
// message's single line or send escape sequences to the terminal. Not part
// of the API: shared by poslsh's own readers and CLI.
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

}  // namespace detail

}  // namespace poslsh
