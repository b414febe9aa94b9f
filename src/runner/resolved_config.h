// The options a run records: provenance for the .meta.json sidecar and the
// fingerprint that --resume and `poslsh merge` compare.
#pragma once

#include <map>
#include <set>
#include <string>

namespace CLI {
class App;
}

namespace poslsh {

// What a command adds to the generic rule (record every option but the
// runner's own): options another one replaces, whose recorded value would
// make the config contradict itself when fed back (one option standing for
// another), and options recorded in another form than given (a path made
// absolute). Each experiment says its own (SweptExperiment::recorded_options).
struct RecordedOptions {
  std::set<std::string> omitted;                // option names without dashes
  std::map<std::string, std::string> replaced;  // name -> the value to record instead
};

// The command's options with their resolved values as TOML, one `name =
// value` line each in declaration order; the runner's options (--out,
// --threads, --resume, --shard, --quiet, --no-timing, --max-memory, --help,
// --config) and `recorded.omitted` left out.
std::string resolved_config(const CLI::App& command, const RecordedOptions& recorded = {});

// Whether option --`name` of `command` was given a value other than `off`
// (on the command line or in a --config file).
bool option_given(const CLI::App& command, const std::string& name, const std::string& off);

}  // namespace poslsh
