#include "experiments/verify/verify.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <cmath>
#include <stdexcept>

#include "internal/printable.h"
#include "runner/cli_common.h"

namespace poslsh {

namespace {

// Whether the table has the optional leading trial column: its header must be
// exactly `want` or "trial," followed by `want`.
bool require_columns(const CsvTable& t, const std::vector<std::string>& want) {
  std::vector<std::string> with_trial = {"trial"};
  with_trial.insert(with_trial.end(), want.begin(), want.end());
  if (t.columns() == want || t.columns() == with_trial) return t.columns() == with_trial;
  std::string got, expected;
  for (const auto& c : t.columns()) got += (got.empty() ? "" : ",") + c;
  for (const auto& c : want) expected += (expected.empty() ? "" : ",") + c;
  throw InputError(fmt::format("header is '{}', expected exactly '{}' or 'trial,{}'",
                               detail::printable(got, 200), expected, expected));
}

// Sample ids and positions: integers exact in a double.
constexpr std::int64_t kMaxField = std::int64_t{1} << 53;

// The trial of row r (0 without the column), checked to be >= 0 and not to
// decrease down the file (the rows of a trial together, trials in order).
std::int64_t row_trial(const CsvTable& t, bool has_trial, std::size_t r) {
  if (!has_trial) return 0;
  const std::int64_t trial = t.integer(r, "trial", 0, kMaxField);
  if (r > 0 && trial < t.integer(r - 1, "trial", 0, kMaxField))
    throw InputError(fmt::format(
        "row {}: trial {} after trial {}: the rows of a trial must be together, trials in "
        "increasing order",
        CsvTable::line_of(r), trial, t.integer(r - 1, "trial", 0, kMaxField)));
  return trial;
}

}  // namespace

std::vector<VerifySample> samples_from_blocks(const CsvTable& t, std::int64_t n) {
  const bool has_trial = require_columns(t, {"sample", "start", "end"});
  std::vector<VerifySample> out;
  std::int64_t trial = 0, sample = 0;
  std::vector<std::int64_t> starts;  // the open sample's block starts (then n, on closing)
  // Closes the sample whose last block is on row `last`.
  const auto close = [&](std::size_t last) {
    if (starts.back() != n)
      throw InputError(fmt::format(
          "row {}: sample {} covers [0, {}) only; every sample must be a partition of [0, {})",
          CsvTable::line_of(last), sample, starts.back(), n));
    out.push_back(sample_of_partition(starts, n, trial));
  };
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::int64_t tr = row_trial(t, has_trial, r);
    const std::int64_t id = t.integer(r, "sample", -kMaxField, kMaxField);
    const std::int64_t start = t.integer(r, "start", -kMaxField, kMaxField),
                       end = t.integer(r, "end", -kMaxField, kMaxField);
    if (starts.empty() || id != sample || tr != trial) {
      if (!starts.empty()) {
        close(r - 1);
        if (tr == trial && id < sample)
          throw InputError(fmt::format(
              "row {}: sample {} after sample {}: rows of a sample must be together, samples in "
              "increasing order",
              CsvTable::line_of(r), id, sample));
      }
      trial = tr;
      sample = id;
      starts = {0};
    }
    if (start != starts.back())
      throw InputError(
          fmt::format("row {}: sample {} block [{}, {}) should start at {} (blocks must be sorted, "
                      "contiguous and non-overlapping)",
                      CsvTable::line_of(r), id, start, end, starts.back()));
    if (end <= start || end > n)
      throw InputError(fmt::format("row {}: sample {} block [{}, {}) is empty or ends past n = {}",
                                   CsvTable::line_of(r), id, start, end, n));
    starts.push_back(end);
  }
  if (!starts.empty()) close(t.size() - 1);
  return interleave_trials(std::move(out));
}

std::vector<VerifySample> samples_from_hashes(const CsvTable& t, std::int64_t n) {
  const bool has_trial = require_columns(t, {"sample", "pitch", "shift"});
  std::vector<VerifySample> out;
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::int64_t trial = row_trial(t, has_trial, r);
    const std::int64_t id = t.integer(r, "sample", -kMaxField, kMaxField);
    if (r > 0 && (out.back().trial == trial) &&
        id <= t.integer(r - 1, "sample", -kMaxField, kMaxField))
      throw InputError(fmt::format("row {}: sample ids must be increasing (got {} after {})",
                                   CsvTable::line_of(r), id,
                                   t.integer(r - 1, "sample", -kMaxField, kMaxField)));
    const double pitch = t.number(r, "pitch"), shift = t.number(r, "shift");
    if (!std::isfinite(pitch) || !(pitch > 0))
      throw InputError(fmt::format("row {}: pitch must be finite and > 0, got '{}'",
                                   CsvTable::line_of(r), detail::printable(t.text(r, "pitch"))));
    if (!std::isfinite(shift))
      throw InputError(fmt::format("row {}: shift must be finite, got '{}'", CsvTable::line_of(r),
                                   detail::printable(t.text(r, "shift"))));
    out.push_back(sample_of_hash({pitch, shift}, n, trial));
  }
  return interleave_trials(std::move(out));
}

namespace sparse_verify {

struct SparseRow {
  std::int64_t trial, sample, anchor, run;
};

SparseRow read_sparse_row(const CsvTable& t, std::size_t r, std::int64_t n) {
  const std::int64_t trial = t.integer(r, "trial", 0, kMaxField),
                     sample = t.integer(r, "sample", -kMaxField, kMaxField),
                     anchor = t.integer(r, "anchor", 0, kMaxField),
                     start = t.integer(r, "start", 0, kMaxField),
                     end = t.integer(r, "end", 0, kMaxField);
  if (!(start <= anchor && anchor < end && end <= n))
    throw InputError(fmt::format(
        "row {}: block [{}, {}) must hold anchor {} and lie in [0, n = {}) (0 <= start <= anchor "
        "< end <= n)",
        CsvTable::line_of(r), start, end, anchor, n));
  return {trial, sample, anchor, anchor > n / 2 ? anchor - start + 1 : end - anchor};
}

}  // namespace sparse_verify

SparseSamples samples_from_sparse(const CsvTable& t, std::int64_t n) {
  using sparse_verify::SparseRow;
  require_columns(t, {"trial", "sample", "anchor", "start", "end"});
  struct Sample {
    std::int64_t trial;
    std::vector<std::int64_t> runs;
  };
  std::vector<Sample> samples;
  std::vector<std::int64_t> anchors;
  SparseRow prev{};
  const auto close = [&](std::size_t last) {
    if (samples.back().runs.size() != anchors.size())
      throw InputError(fmt::format("row {}: sample {} of trial {} lists {} anchors, not {}",
                                   CsvTable::line_of(last), prev.sample, prev.trial,
                                   samples.back().runs.size(), anchors.size()));
  };
  for (std::size_t r = 0; r < t.size(); ++r) {
    const SparseRow row = sparse_verify::read_sparse_row(t, r, n);
    if (r == 0 || row.trial != prev.trial || row.sample != prev.sample) {
      if (r > 0) close(r - 1);
      if (r > 0 &&
          (row.trial < prev.trial || (row.trial == prev.trial && row.sample < prev.sample)))
        throw InputError(
            fmt::format("row {}: (trial {}, sample {}) after (trial {}, sample {}): "
                        "rows must be sorted by trial, then sample",
                        CsvTable::line_of(r), row.trial, row.sample, prev.trial, prev.sample));
      samples.push_back({row.trial, {}});
    }
    auto& runs = samples.back().runs;
    if (samples.size() == 1 && (anchors.empty() || row.anchor > anchors.back()))
      anchors.push_back(row.anchor);
    if (runs.size() >= anchors.size() || row.anchor != anchors[runs.size()])
      throw InputError(fmt::format(
          "row {}: anchor {} out of place: every sample must list the anchors of the first, in "
          "increasing order",
          CsvTable::line_of(r), row.anchor));
    runs.push_back(row.run);
    prev = row;
  }
  if (!samples.empty()) close(t.size() - 1);
  SparseSamples out{anchors, {}, {}};
  for (auto& s : interleave_by_trial(std::move(samples))) {
    out.runs.push_back(std::move(s.runs));
    out.trials.push_back(s.trial);
  }
  return out;
}

}  // namespace poslsh
