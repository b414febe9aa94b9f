// RunRecord: the provenance sidecar (<table>.meta.json) poslsh writes beside
// every table it produces (an experiment's sweep, `merge`, `sample`) and that
// `--resume`, `merge` and `rerun` read back. One type, read and written with
// nlohmann-json, so the format has one writer and one reader.
//
// The layout on disk is the one poslsh has always written, kept byte for byte
// so existing sidecars, their checksums and the tools that grep them stay
// valid: one top-level field per line in the order the fields were set,
// arrays on one line with ", " between elements, floating-point numbers with
// three decimals (the millisecond precision of the only one, the duration).
// Strings are escaped by the JSON library; JSON text is UTF-8 (RFC 8259), so a
// string holding bytes that are not UTF-8 is written with U+FFFD in their place.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace poslsh {

class RunRecord {
 public:
  // A record of this build of poslsh: "tool", "version" and "git_commit".
  static RunRecord of_this_build();

  // Parses a sidecar's text. Throws InputError naming `component` and `path`
  // when it is not a JSON object.
  static RunRecord parse(const std::string& text, const std::string& path,
                         const std::string& component);
  // Reads the sidecar at `path` (InputError naming `component` when it cannot
  // be read or parsed).
  static RunRecord read(const std::string& path, const std::string& component);

  // The sidecar's text, in the layout described above.
  std::string to_text() const;

  // Setters append a field (or replace it where it already is).
  RunRecord& set(const std::string& key, const std::string& value);
  RunRecord& set(const std::string& key, const char* value) { return set(key, std::string(value)); }
  RunRecord& set(const std::string& key, std::uint64_t value);
  RunRecord& set(const std::string& key, bool value);
  RunRecord& set(const std::string& key, double value);
  RunRecord& set(const std::string& key, const std::vector<std::string>& values);
  // A field copied unchanged from another record (merge copies a shard's seed).
  RunRecord& copy(const std::string& key, const RunRecord& from);

  bool has(const std::string& key) const { return fields_.contains(key); }
  // A field's value; InputError naming the component and path of the record
  // read when it is missing or of another type. text() and number() read
  // strings and unsigned integers; boolean() true/false.
  std::string text(const std::string& key) const;
  std::uint64_t number(const std::string& key) const;
  bool boolean(const std::string& key) const;

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  const nlohmann::ordered_json& field(const std::string& key) const;

  nlohmann::ordered_json fields_ = nlohmann::ordered_json::object();
  std::string path_ = "<record>", component_ = "record";
};

// The fields every sweep's sidecar holds, in order (see run_sweep).
struct SweepRecordFields {
  std::string experiment, shard, finished_utc, machine, config;
  std::uint64_t seed = 0, cells_total = 0, cells_in_shard = 0, threads = 0, rows = 0;
  bool timing = true;
  std::uint64_t config_fingerprint = 0, csv_fnv1a64 = 0;
  double duration_seconds = 0;
  std::vector<std::string> columns;
};
RunRecord sweep_record(const SweepRecordFields& f);

// A 64-bit fingerprint as sidecars write it: 16 lowercase hex digits.
std::string hex64(std::uint64_t value);

}  // namespace poslsh
