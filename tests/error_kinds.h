// Which kind of error a call throws (docs/ARCHITECTURE.md, "Errors"): a broken
// invariant or precondition is a std::logic_error that is not a
// std::invalid_argument, so that no catch of InputError (or of its base) can
// report it as the user's bad input.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace poslsh::testing {

template <class F>
void expect_broken_invariant(F&& call, const std::string& what = "") {
  try {
    call();
    ADD_FAILURE() << "no exception: " << what;
  } catch (const std::invalid_argument& e) {
    ADD_FAILURE() << "bad input (" << e.what() << "), expected a broken invariant: " << what;
  } catch (const std::logic_error&) {
  }
}

}  // namespace poslsh::testing
