// Numbers and messages as poslsh prints them.
#pragma once

#include <poslsh/argument_error.h>

#include <string>

namespace poslsh {

// `text` with newlines turned into spaces and trailing spaces dropped: error
// messages (CLI11's hold newlines) are printed as one line.
std::string single_line(std::string text);

// Numbers: the core's format_value (poslsh/argument_error.h, included above),
// the shortest decimal that reads back to the same double ("nan"/"inf"/"-inf"
// for non-finite values), is the one formatter of numbers in tables,
// sidecars, reports and error messages.

}  // namespace poslsh
