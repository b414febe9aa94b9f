// The TOML of --config files as poslsh reads it: a syntax check run before
// CLI11's lenient reader, and the section names `poslsh reproduce` runs.
#pragma once

#include <string>
#include <vector>

namespace poslsh {

// Throws UsageError naming the file and line unless every line of the config
// file at `path` is blank, a # comment, a [section] or `key = value` with a
// value that is a number, true/false, a quoted string or a one-line [array]
// of those. CLI11's reader is lenient (an unterminated `n = [64` was taken as
// absent and the defaults ran); this check runs first. An unreadable file is
// left to the config reader's own message.
void check_config_syntax(const std::string& path);

// The section names of a TOML text, in order: "[convergence]" -> "convergence",
// "[bench.attention]" -> "bench.attention" (a line whose first non-blank
// character is '[', up to its first ']').
std::vector<std::string> config_sections(const std::string& toml);

}  // namespace poslsh
