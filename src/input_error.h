// The error type for unusable data handed to poslsh: a file, table, tensor or
// sidecar that cannot be read or does not say what it must (the CLI prints it
// as one line and exits 2). It derives from std::invalid_argument so library
// callers can catch both alike; a plain std::invalid_argument or another
// std::logic_error that reaches the CLI is a poslsh bug (a precondition the
// CLI should have checked first) and exits 3 as an internal error.
#pragma once

#include <stdexcept>

namespace poslsh {

class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace poslsh
