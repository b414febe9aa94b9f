// What every fuzz entry shares (fuzz/<target>_entry.h, one per target, each
// included by its libFuzzer binary fuzz/fuzz_<target>.cpp and by the
// GoogleTest replay of the corpora and regression inputs,
// tests/test_fuzz_regressions.cpp).
//
// An entry takes the bytes of one input file. It returns normally when the
// reader accepts the input or rejects it the documented way (the exception
// types the CLI reports as "unusable input", exit 2); anything else — another
// exception type, a crash, a sanitizer report, a violated invariant
// (InvariantViolation) — escapes, which libFuzzer reports as a finding and the
// replay test as a failure. Entries call the library's own functions, linked
// from the same targets as the CLI, so the fuzzers run that exact code, not a
// copy.
#pragma once

#include <poslsh/input_error.h>

#include <exception>
#include <stdexcept>
#include <string>

#include "runner/cli_errors.h"

namespace poslsh_fuzz {

// The exception types that mean "the input is unusable" (exit 2): InputError
// (ArgumentError included) and UsageError. A std::logic_error, a plain
// std::invalid_argument among them, is a broken invariant (exit 3): a finding.
inline bool expected_rejection(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const poslsh::InputError&) {
    return true;
  } catch (const poslsh::UsageError&) {
    return true;
  } catch (...) {
    return false;
  }
}

// A violated invariant. No entry catches it: libFuzzer reports the uncaught
// exception (std::terminate) as a crash, the replay test as a failure.
class InvariantViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};
[[noreturn]] inline void invariant_failed(const std::string& what) {
  throw InvariantViolation("invariant violated: " + what);
}

}  // namespace poslsh_fuzz
