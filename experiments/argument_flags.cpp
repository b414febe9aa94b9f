// The experiments' options that set a core argument, so that the core's
// ArgumentError is printed with the flag the user typed
// (runner/cli_errors.h: flag_for).
#include "runner/cli_errors.h"

namespace poslsh {
namespace argument_flags {

// A named namespace, not an anonymous one: the experiments are a unity build.
const bool kRegistered = register_argument_flag("band_tol", "--band-tol") &&
                         register_argument_flag("batch", "--batch") &&
                         register_argument_flag("max_iterations", "--max-lanczos") &&
                         register_argument_flag("p", "--p") &&
                         register_argument_flag("points", "--points") &&
                         register_argument_flag("rel_tol", "--spectral-tol") &&
                         register_argument_flag("starts", "--lanczos-starts") &&
                         register_argument_flag("upper_q", "--upper-q") &&
                         register_argument_flag("upper_width", "--upper-width");

}  // namespace argument_flags
}  // namespace poslsh
