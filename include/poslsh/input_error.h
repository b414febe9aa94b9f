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

namespace poslsh {

class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace poslsh
