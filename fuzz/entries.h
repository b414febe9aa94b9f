// The entry logic of poslsh's fuzz targets, shared by the libFuzzer binaries
// (fuzz/fuzz_<target>.cpp, built by fuzz/CMakeLists.txt with clang) and by the
// GoogleTest replay of the corpora and regression inputs
// (tests/test_fuzz_regressions.cpp, built by the main gcc build).
//
// Each entry takes the bytes of one input file. It returns normally when the
// reader accepts the input or rejects it the documented way (the exception
// types the CLI reports as "unusable input", exit 2); anything else — another
// exception type, a crash, a sanitizer report, a violated invariant (InvariantViolation) —
// escapes, which libFuzzer reports as a finding and the replay test as a
// failure.
//
// The .meta.json reads are RunRecord's (src/runner/run_record.h) and the TOML
// config handling is the CLI's own (apps/cli_app.h: the CLI11 app, its
// argument handling and error messages), both linked from the library, so the
// fuzzers run that exact code, not a copy.
#pragma once

#include <poslsh/input_error.h>
#include <poslsh/npy.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "apps/cli_app.h"
#include "experiments/experiment.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"
#include "runner/resolved_config.h"
#include "runner/run_record.h"
#include "runner/sweep.h"
#include "runner/version.h"

namespace poslsh_fuzz {

// The exception types that mean "the input is unusable" (exit 2): InputError
// and every std::invalid_argument (check_file turns a checker's
// std::invalid_argument into an InputError), and UsageError.
inline bool expected_rejection(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::invalid_argument&) {
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

// ---------------------------------------------------------------- .npy ----

struct NpyResult {
  bool accepted = false;    // parse_npy returned an array
  bool head_stack = false;  // parse_head_stack_npy returned a stack
  std::string error;        // the rejection message, if any
};

// parse_npy (the reader behind read_npy) and parse_head_stack_npy (behind
// read_head_stack_npy: --qkv q.npy, k.npy, v.npy).
inline NpyResult fuzz_npy(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string name = "fuzz.npy";
  NpyResult r;
  try {
    const poslsh::NpyArray a = poslsh::parse_npy(bytes, name);
    r.accepted = true;
    std::uint64_t count = 1;
    for (const std::int64_t dim : a.shape) {
      if (dim < 1) invariant_failed("parse_npy accepted a dimension < 1");
      count *= static_cast<std::uint64_t>(dim);
    }
    if (a.shape.empty() || count != a.data.size())
      invariant_failed("parse_npy: data size differs from the product of the shape");
  } catch (const poslsh::InputError& e) {
    r.error = e.what();
  }
  try {
    const poslsh::HeadStack<double> h = poslsh::parse_head_stack_npy(bytes, name);
    r.head_stack = true;
    if (h.heads < 1 || h.data.rows() % h.heads != 0)
      invariant_failed("parse_head_stack_npy: rows not a multiple of heads");
  } catch (const poslsh::InputError& e) {
    if (r.error.empty()) r.error = e.what();
  }
  // Every message is one line that names the file; header text it quotes is
  // escaped (no control byte reaches the terminal).
  if (!r.error.empty()) {
    bool printable = true;
    for (const char c : r.error)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) printable = false;
    if (r.error.rfind(name + ": ", 0) != 0 || !printable)
      invariant_failed("a .npy error message must be one printable line naming the file: " +
                       r.error);
  }
  return r;
}

// ---------------------------------------------------------------- CSV ----

struct CsvResult {
  bool parsed = false;   // CsvTable::parse accepted the text
  std::size_t rows = 0;  // its data rows
  int checkers_ran = 0;  // registered checkers that returned outcomes
  int checkers_rejected = 0;
};

// CsvTable::parse (the reader of `poslsh check` and `merge`), every cell as a
// number, then, as check_file does for a table with rows, every registered
// experiment checker (not only the one whose columns match).
inline CsvResult fuzz_csv(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  CsvResult r;
  std::optional<poslsh::CsvTable> table;
  try {
    table.emplace(poslsh::CsvTable::parse(text, "fuzz.csv"));
  } catch (const poslsh::InputError&) {
    return r;
  }
  r.parsed = true;
  r.rows = table->size();
  for (std::size_t row = 0; row < table->size(); ++row) {
    if (table->row(row).size() != table->columns().size())
      invariant_failed("CsvTable::parse kept a row whose width differs from the header's");
    for (const auto& col : table->columns()) {
      try {
        (void)table->number(row, col);
      } catch (const poslsh::InputError&) {
      }
    }
  }
  if (table->size() == 0) return r;  // check_file refuses a table without rows
  for (const auto& e : poslsh::experiments()) {
    if (!e.checker.run) continue;
    try {
      const auto outcomes = e.checker.run(*table, poslsh::kCheckFamilyAlpha);
      ++r.checkers_ran;
      for (const auto& o : outcomes)
        if (o.check.find('\n') != std::string::npos)
          invariant_failed("checker " + e.name + " named a check with a newline");
    } catch (...) {
      if (!expected_rejection(std::current_exception())) throw;
      ++r.checkers_rejected;
    }
  }
  return r;
}

// ---------------------------------------------------------- .meta.json ----

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

// -------------------------------------------------------- TOML config ----

struct ConfigResult {
  int tried = 0;            // subcommands the config was parsed for
  int parsed = 0;           // parses that succeeded
  std::string first_error;  // the first CLI::ParseError, for diagnosis
};

// A per-process scratch file: CLI11 reads --config from a path.
inline std::string config_scratch_path() {
  return (std::filesystem::temp_directory_path() /
          ("poslsh-fuzz-config-" + std::to_string(::getpid()) + ".toml"))
      .string();
}
inline void remove_config_scratch() { std::remove(config_scratch_path().c_str()); }

// Section names, as `poslsh reproduce` finds them: "[convergence]" -> "convergence".
inline std::vector<std::string> config_sections(const std::string& toml) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin < toml.size()) {
    std::size_t end = toml.find('\n', begin);
    if (end == std::string::npos) end = toml.size();
    const std::string line = toml.substr(begin, end - begin);
    begin = end + 1;
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] != '[') continue;
    const auto close = line.find(']', first);
    if (close != std::string::npos) out.push_back(line.substr(first + 1, close - first - 1));
  }
  return out;
}

// `poslsh <section> --config FILE --out X.csv` for the first two sections of
// the input that name a subcommand (else the first experiment), as `poslsh
// reproduce` runs them ([bench.attention] -> `bench attention`), parsed exactly
// as run_cli() does (CliApp::parse: hoisted --config, expanded ranges) but
// not run (nothing is written), followed by resolved_config() of the chosen
// subcommand: the provenance every experiment derives from its options.
// run_cli() catches only CLI::ParseError and UsageError around parse(): any
// other exception would end the CLI.
inline ConfigResult fuzz_config(const std::uint8_t* data, std::size_t size) {
  const std::string toml(reinterpret_cast<const char*>(data), size);
  const std::string path = config_scratch_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(toml.data(), static_cast<std::streamsize>(toml.size()));
    if (!out) invariant_failed("cannot write the scratch config " + path);
  }
  // Building the app is most of the cost of a run: only sections that name
  // a subcommand, at most two of them.
  static const std::set<std::string> subcommands = [] {
    std::set<std::string> names;
    poslsh::CliApp cli;
    for (CLI::App* sub : cli.app().get_subcommands([](CLI::App*) { return true; })) {
      names.insert(sub->get_name());
      for (CLI::App* nested : sub->get_subcommands([](CLI::App*) { return true; }))
        names.insert(sub->get_name() + "." + nested->get_name());
    }
    return names;
  }();
  std::vector<std::string> wanted;
  for (const auto& s : config_sections(toml)) {
    if (!subcommands.count(s) || std::find(wanted.begin(), wanted.end(), s) != wanted.end())
      continue;
    wanted.push_back(s);
    if (wanted.size() == 2) break;
  }
  if (wanted.empty()) wanted.push_back(poslsh::experiments().front().name);
  ConfigResult r;
  for (const auto& section : wanted) {
    // The command line a user types: poslsh [bench] NAME --config FILE --out X.csv
    std::vector<std::string> words = {"poslsh"};
    for (std::size_t begin = 0;;) {  // "bench.attention" -> bench attention
      const auto dot = section.find('.', begin);
      words.push_back(section.substr(begin, dot - begin));
      if (dot == std::string::npos) break;
      begin = dot + 1;
    }
    words.insert(words.end(), {"--config", path, "--out", path + ".csv"});
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const int argc = static_cast<int>(words.size());
    poslsh::CliApp cli;
    ++r.tried;
    // From here on as run_cli() does, up to the action, which is not run.
    try {
      cli.parse(argc, argv.data());
    } catch (const poslsh::UsageError& e) {
      if (r.first_error.empty()) r.first_error = section + ": " + e.what();
      continue;
    } catch (const CLI::ParseError& e) {
      const std::string message = cli.describe(e, argc, argv.data());
      if (r.first_error.empty()) r.first_error = section + ": " + e.get_name() + ": " + message;
      continue;
    }
    ++r.parsed;
    CLI::App* chosen = cli.app().get_subcommands().front();
    while (!chosen->get_subcommands().empty()) chosen = chosen->get_subcommands().front();
    (void)poslsh::resolved_config(*chosen);
  }
  return r;
}

}  // namespace poslsh_fuzz
