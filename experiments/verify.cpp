#include "experiments/verify.h"

#include <fmt/format.h>
#include <poslsh/block_size.h>
#include <poslsh/block_size_law.h>
#include <poslsh/cobinning.h>
#include <poslsh/input_error.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "experiments/unbiasedness.h"
#include "runner/cli_common.h"
#include "runner/csv_writer.h"

namespace poslsh {

namespace {

// As for `poslsh blocksize` tables: a chi-square fit on fewer samples says little.
constexpr std::int64_t kMinLawSamples = 100;

void require_columns(const CsvTable& t, const std::vector<std::string>& want) {
  if (t.columns() != want) {
    std::string got, expected;
    for (const auto& c : t.columns()) got += (got.empty() ? "" : ",") + c;
    for (const auto& c : want) expected += (expected.empty() ? "" : ",") + c;
    throw InputError(
        fmt::format("header is '{}', expected exactly '{}'", printable(got, 200), expected));
  }
}

// Sample ids and positions: integers exact in a double.
constexpr std::int64_t kMaxField = std::int64_t{1} << 53;

}  // namespace

std::vector<VerifySample> samples_from_blocks(const CsvTable& t, std::int64_t n) {
  require_columns(t, {"sample", "start", "end"});
  const std::int64_t anchors[3] = {cobin_anchor(CobinRegion::kStart, n),
                                   cobin_anchor(CobinRegion::kMiddle, n),
                                   cobin_anchor(CobinRegion::kEnd, n)};
  std::vector<VerifySample> out;
  std::int64_t sample = 0, expect_start = 0;
  bool open = false;
  VerifySample cur;
  // Closes the sample whose last block is on row `last`.
  const auto close = [&](std::size_t last) {
    if (expect_start != n)
      throw InputError(fmt::format(
          "row {}: sample {} covers [0, {}) only; every sample must be a partition of [0, {})",
          CsvTable::line_of(last), sample, expect_start, n));
    out.push_back(cur);
  };
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::int64_t id = t.integer(r, "sample", -kMaxField, kMaxField);
    const std::int64_t start = t.integer(r, "start", -kMaxField, kMaxField),
                       end = t.integer(r, "end", -kMaxField, kMaxField);
    if (!open || id != sample) {
      if (open) {
        close(r - 1);
        if (id < sample)
          throw InputError(fmt::format(
              "row {}: sample {} after sample {}: rows of a sample must be together, samples in "
              "increasing order",
              CsvTable::line_of(r), id, sample));
      }
      open = true;
      sample = id;
      expect_start = 0;
      cur = VerifySample{};
    }
    if (start != expect_start)
      throw InputError(
          fmt::format("row {}: sample {} block [{}, {}) should start at {} (blocks must be sorted, "
                      "contiguous and non-overlapping)",
                      CsvTable::line_of(r), id, start, end, expect_start));
    if (end <= start || end > n)
      throw InputError(fmt::format("row {}: sample {} block [{}, {}) is empty or ends past n = {}",
                                   CsvTable::line_of(r), id, start, end, n));
    cur.b_max = std::max(cur.b_max, end - start);
    for (int a = 0; a < 3; ++a) {
      if (anchors[a] < start || anchors[a] >= end) continue;
      cur.runs[a] = a == 2 ? anchors[a] - start + 1 : end - anchors[a];
    }
    expect_start = end;
  }
  if (open) close(t.size() - 1);
  return out;
}

std::vector<VerifySample> samples_from_hashes(const CsvTable& t, std::int64_t n) {
  require_columns(t, {"sample", "pitch", "shift"});
  std::vector<VerifySample> out;
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::int64_t id = t.integer(r, "sample", -kMaxField, kMaxField);
    if (r > 0 && id <= t.integer(r - 1, "sample", -kMaxField, kMaxField))
      throw InputError(fmt::format("row {}: sample ids must be increasing (got {} after {})",
                                   CsvTable::line_of(r), id,
                                   t.integer(r - 1, "sample", -kMaxField, kMaxField)));
    const double pitch = t.number(r, "pitch"), shift = t.number(r, "shift");
    if (!std::isfinite(pitch) || !(pitch > 0))
      throw InputError(fmt::format("row {}: pitch must be finite and > 0, got '{}'",
                                   CsvTable::line_of(r), printable(t.text(r, "pitch"))));
    if (!std::isfinite(shift))
      throw InputError(fmt::format("row {}: shift must be finite, got '{}'", CsvTable::line_of(r),
                                   printable(t.text(r, "shift"))));
    const PositionalHash h{pitch, shift};
    VerifySample s;
    for (int a = 0; a < 3; ++a) s.runs[a] = cobin_run(h, all_cobin_regions()[a], n);
    // The partition depends on the shift modulo the pitch only; the O(1)
    // largest-block scan wants it in [0, pitch].
    double folded = std::fmod(shift, pitch);
    if (folded < 0) folded += pitch;
    s.b_max =
        n <= (std::int64_t{1} << 50) ? largest_block_size({pitch, folded}, n) : largest_block(h, n);
    out.push_back(s);
  }
  return out;
}

VerifyReport verify_samples(const std::vector<VerifySample>& samples, const VerifyOptions& o) {
  if (static_cast<std::int64_t>(samples.size()) < o.batch)
    throw InputError(fmt::format("{} samples: the checks need at least one batch of {}",
                                 samples.size(), o.batch));
  VerifyReport report;
  // Alpha: three quarters to the co-binning families, a quarter to the law.
  const double cobin_alpha = 0.75 * o.alpha, law_alpha = 0.25 * o.alpha;
  const auto offsets = cobin_offsets(o.n, o.sigma, o.points);
  std::string rows = csv_line(unbiasedness_columns());
  for (int a = 0; a < 3; ++a) {
    CobinCounts counts(offsets, o.batch);
    for (const auto& s : samples) counts.add_run(s.runs[a]);
    for (const auto& row : unbiasedness_rows(o.n, o.sigma, all_cobin_regions()[a], counts))
      rows += csv_line(row);
    report.samples = counts.hashes();
  }
  report.outcomes = check_unbiasedness_table(CsvTable::parse(rows, "verify"), cobin_alpha);
  report.detectable_scale =
      detectable_scale_error(offsets, report.samples, o.sigma,
                             cobin_scale_level(cobin_alpha, all_cobin_regions().size()), 0.99);

  const BlockSizeLaw law(o.n, o.sigma, 1);
  const std::int64_t count = static_cast<std::int64_t>(samples.size());
  const std::string name = fmt::format("law[n={},sigma={},s=1]", o.n, format_double(o.sigma));
  if (count < kMinLawSamples) {
    report.outcomes.push_back(
        {name, Verdict::kNotApplicable, fmt::format("{} samples < {}", count, kMinLawSamples)});
  } else if (!law_applies(o.n, o.sigma, 1, count)) {
    report.outcomes.push_back(
        {name, Verdict::kNotApplicable,
         fmt::format("n too small for the law F(b): samples x E[pitch]/(2n) = {:.3g} > 0.5",
                     static_cast<double>(count) * law_deviation_rate(o.n, o.sigma, 1))});
  } else {
    std::vector<std::int64_t> b_max;
    double total = 0;
    for (const auto& s : samples) {
      b_max.push_back(s.b_max);
      total += static_cast<double>(s.b_max);
    }
    const BlockSizeFit fit = block_size_fit(b_max, law);
    if (!fit.test.testable) {
      report.outcomes.push_back(
          {name, Verdict::kNotApplicable, "a single cell of expected count >= 5"});
    } else {
      report.outcomes.push_back(
          {name, fit.test.p_value >= law_alpha ? Verdict::kPass : Verdict::kFail,
           fmt::format("largest block of each sample vs its exact law F(b): chi2 = {:.2f}, dof = "
                       "{}, p = {:.3g}; needs >= {:.2g}; mean {:.3f} vs law {:.3f}",
                       fit.test.statistic, fit.test.dof, fit.test.p_value, law_alpha,
                       total / static_cast<double>(count), mean(law))});
    }
  }
  return report;
}

}  // namespace poslsh
