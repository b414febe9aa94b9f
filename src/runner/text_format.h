// Numbers and messages as poslsh prints them.
#pragma once

#include <poslsh/argument_error.h>

#include <string>

namespace poslsh {

// `text` with newlines turned into spaces and trailing spaces dropped: error
// messages (CLI11's hold newlines) are printed as one line.
std::string single_line(std::string text);

// Shortest decimal that reads back to the same double, "nan"/"inf"/"-inf" for
// non-finite values: the core's format_value (poslsh/argument_error.h), the one
// formatter of numbers in tables, sidecars, reports and error messages.
inline std::string format_double(double value) { return format_value(value); }

}  // namespace poslsh
