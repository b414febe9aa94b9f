// The .meta.json sidecars poslsh writes beside every table: one top-level
// field per line, `"key": value`. json_quote writes string values and
// json_field reads them back, so a sidecar round-trips without a JSON
// dependency: every string json_quote can write (any bytes, control
// characters as \uXXXX) reads back unchanged.
#pragma once

#include <string>

namespace poslsh {

// JSON string literal with escapes: quote and backslash escaped, \n \t \r by
// name, other control characters as \u00XX; bytes >= 0x80 are copied (UTF-8
// stays UTF-8).
std::string json_quote(const std::string& text);

// The value of the top-level field `key` of a sidecar: a string literal is
// returned decoded (\" \\ \/ \b \f \n \r \t and \uXXXX, surrogate pairs
// included, as UTF-8); any other value (number, array) as its raw text up to
// the next ',' or newline. Throws InputError naming `component` and `path`
// when the field is missing or its string literal is malformed (unterminated,
// a bad escape, a lone surrogate).
std::string json_field(const std::string& json, const std::string& key, const std::string& path,
                       const std::string& component = "merge");

}  // namespace poslsh
