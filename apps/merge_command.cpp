// `poslsh merge --out FILE.csv SHARD.csv...`: combines the outputs of
// `--shard K/N` runs into the bytes a single run would have written. Shards
// are contiguous slices of the cell list, so merging is concatenation in K
// order; the .meta.json sidecars prove the shards belong to one sweep.
#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "commands.h"
#include "experiments/experiment.h"
#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"
#include "runner/run_record.h"
#include "runner/sweep.h"
#include "runner/version.h"

namespace poslsh {

// A named namespace, not an anonymous one: the runner is a unity build.
namespace merge_steps {

struct ShardFile {
  std::string path, csv;
  RunRecord meta;
  Shard shard;
  std::size_t rows = 0;  // data rows of its table
};

// A shard's table and sidecar, refused when they do not agree.
ShardFile read_shard(const std::string& path) {
  ShardFile s;
  s.path = path;
  s.csv = read_file("merge", path);
  s.meta = RunRecord::parse(read_file("merge", path + ".meta.json"), path, "merge");
  s.shard = parse_shard(s.meta.text("shard"));
  // The sidecar records the table's bytes: a shard cut short or edited
  // since it was written is refused, not merged (sidecars written before
  // this field existed are checked for well-formed rows only).
  if (s.meta.has("csv_fnv1a64") && s.meta.text("csv_fnv1a64") != hex64(fingerprint(s.csv)))
    throw UsageError(fmt::format(
        "merge: '{}' does not match its .meta.json (the table was cut short or edited after "
        "it was written)",
        path));
  // Every table poslsh writes ends with a newline; a shard without one was
  // cut short, and concatenating it would glue its last row to the next
  // shard's first.
  if (s.csv.empty() || s.csv.back() != '\n')
    throw InputError(fmt::format(
        "merge: '{}' does not end with a newline (the table was cut short or edited)", path));
  try {
    s.rows = CsvTable::parse(s.csv, path).size();
  } catch (const InputError& e) {
    throw InputError(fmt::format("merge: {}", e.what()));
  }
  return s;
}

std::string header_of(const std::string& csv) { return csv.substr(0, csv.find('\n') + 1); }

// Whether a shard wrote its timing columns (--no-timing leaves them empty):
// sidecars written before the field existed are timed.
bool timed(const RunRecord& meta) { return !meta.has("timing") || meta.boolean("timing"); }

// The shards (sorted by K) concatenated, after checking they are 1..N of N
// of one sweep.
std::string concatenate(const std::vector<ShardFile>& shards) {
  const auto& first = shards.front();
  const int count = first.shard.count;
  if (static_cast<int>(shards.size()) != count)
    throw UsageError(fmt::format("merge: {} files given but the shards are 1..{} of {}",
                                 shards.size(), count, count));
  std::string merged = header_of(first.csv);
  for (int k = 0; k < count; ++k) {
    const auto& s = shards[k];
    if (s.shard.index != k + 1 || s.shard.count != count)
      throw UsageError(fmt::format("merge: expected shard {}/{}, '{}' is shard {}/{}", k + 1, count,
                                   s.path, s.shard.index, s.shard.count));
    if (s.meta.text("experiment") != first.meta.text("experiment") ||
        s.meta.text("config_fingerprint") != first.meta.text("config_fingerprint") ||
        timed(s.meta) != timed(first.meta) || header_of(s.csv) != header_of(first.csv))
      throw UsageError(
          fmt::format("merge: '{}' comes from a different sweep than '{}'", s.path, first.path));
    // Shards run days apart (one job at a time) must still be one
    // program's output: a fix between them would split the table in two.
    if (s.meta.text("git_commit") != first.meta.text("git_commit"))
      throw UsageError(fmt::format(
          "merge: '{}' was computed by commit {} and '{}' by commit {} (accepted: shards of one "
          "build; rerun the odd shard with that commit)",
          s.path, s.meta.text("git_commit"), first.path, first.meta.text("git_commit")));
    merged += s.csv.substr(header_of(s.csv).size());
  }
  return merged;
}

// The merged table's sidecar: the first shard's sweep and commit, the shards it came from.
std::string merged_record(const std::vector<ShardFile>& shards, const std::string& merged) {
  const auto& first = shards.front();
  std::size_t rows = 0;
  for (const auto& s : shards) rows += s.rows;
  std::vector<std::string> from;
  for (const auto& s : shards) from.push_back(s.path);
  // The shards' commit, not the merging binary's: the commit computed the rows.
  return RunRecord::of_this_build()
      .set("git_commit", first.meta.text("git_commit"))
      .set("experiment", first.meta.text("experiment"))
      .set("shard", "1/1")
      .set("config_fingerprint", first.meta.text("config_fingerprint"))
      .copy("seed", first.meta)
      // What `--resume` compares to know the merged table is the finished
      // run (so `reproduce --resume` reports on it instead of rerunning it).
      .set("timing", timed(first.meta))
      .set("merged_from", from)
      .set("rows", std::uint64_t{rows})
      .set("csv_fnv1a64", hex64(fingerprint(merged)))
      .set("config", first.meta.text("config"))
      .to_text();
}

int merge(const std::vector<std::string>& inputs, const std::string& out) {
  std::vector<ShardFile> shards;
  for (const auto& path : inputs) shards.push_back(read_shard(path));
  std::sort(shards.begin(), shards.end(),
            [](const auto& a, const auto& b) { return a.shard.index < b.shard.index; });
  const std::string merged = concatenate(shards);
  AtomicFile csv(out, "--out");
  csv.write(merged);
  const auto meta_path = companion_path(out, ".meta.json");
  if (!meta_path) {  // a stream carries the table alone
    csv.commit();
    say_stream_carries_the_table_alone("poslsh merge", out);
    return 0;
  }
  AtomicFile meta(*meta_path, "--out");
  meta.write(merged_record(shards, merged));
  // Experiments that write a summary beside their table get it recomputed
  // from the merged table: the same bytes a single run writes.
  const std::string experiment = shards.front().meta.text("experiment");
  std::optional<AtomicFile> summary;
  for (const auto& e : experiments())
    if (e.name == experiment && e.summarize) {
      summary.emplace(summary_path(out), "--out");
      try {
        summary->write(e.summarize(CsvTable::parse(merged, out)));
      } catch (const InputError& err) {
        throw InputError(fmt::format("merge: {}", err.what()));
      }
    }
  csv.commit();
  meta.commit();
  if (summary) summary->commit();
  return 0;
}

}  // namespace merge_steps

Action add_merge_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> inputs;
    std::string out;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("merge", "Combine --shard K/N outputs into the single-run CSV");
  cmd->add_option("--out", o->out, "Merged CSV (written atomically; - for standard output)")
      ->required();
  cmd->add_option("shards", o->inputs, "Shard CSVs (each with its .meta.json beside it)")
      ->required();
  return [o] { return merge_steps::merge(o->inputs, o->out); };
}

}  // namespace poslsh
