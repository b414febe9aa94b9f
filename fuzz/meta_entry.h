// fuzz_meta: the .meta.json reads of `poslsh merge` (src/runner/run_record.cpp).
#pragma once

#include <poslsh/input_error.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "entry_common.h"
#include "runner/run_record.h"
#include "runner/validators.h"

namespace poslsh_fuzz {

struct MetaResult {
  bool accepted = false;  // every field merge reads was found and the shard parsed
  std::string experiment, fingerprint, csv_hash, seed, config;
  poslsh::Shard shard;
};

// The .meta.json reads of `poslsh merge` (apps/merge_command.cpp), in its
// order: experiment, config_fingerprint, shard (through parse_shard),
// csv_fnv1a64 when present, then the seed and config it copies into the
// merged sidecar. Invariant: a record read back from the text it writes is
// the same record (the same text again, the same config).
inline MetaResult fuzz_meta(const std::uint8_t* data, std::size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  const std::string path = "fuzz.csv";
  MetaResult r;
  std::optional<poslsh::RunRecord> record;
  try {
    record = poslsh::RunRecord::parse(json, path, "merge");
    r.experiment = record->text("experiment");
    r.fingerprint = record->text("config_fingerprint");
    r.shard = poslsh::parse_shard(record->text("shard"));
    if (record->has("csv_fnv1a64")) r.csv_hash = record->text("csv_fnv1a64");
    r.seed = poslsh::RunRecord().copy("seed", *record).to_text();
    r.config = record->text("config");
  } catch (...) {
    if (!expected_rejection(std::current_exception())) throw;
    return r;
  }
  r.accepted = true;
  if (r.shard.index < 1 || r.shard.index > r.shard.count)
    invariant_failed("parse_shard accepted shard " + std::to_string(r.shard.index) + "/" +
                     std::to_string(r.shard.count));
  const std::string text = record->to_text();
  const poslsh::RunRecord again = poslsh::RunRecord::parse(text, path, "merge");
  if (again.to_text() != text) invariant_failed("a record's text does not read back as itself");
  if (again.text("config") != r.config) invariant_failed("the config does not read back unchanged");
  return r;
}

}  // namespace poslsh_fuzz
