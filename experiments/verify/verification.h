// The checks of `poslsh verify` on samples in memory: what the command runs
// on the hashes or blocks it reads from a file (verify.h), and what the Python
// module's verify_hashes and verify_blocks run on arrays, so the two print the
// same lines for the same samples, bit for bit. On the core alone (no runner:
// no tables, no CLI), built as poslsh_verification, which the CLI and the
// Python module link.
//
// The checks, at level alpha in all (Bonferroni):
//  - the co-binning checks (cobinning_checks.h: mean, scale, dispersion) at the
//    start, middle and end anchors, one run per sample per anchor;
//  - the block-size law: each sample's largest block against F(b) (the law of
//    b_max for s = 1), exact binomial tails of the empirical CDF at the law's
//    cut points, where the law applies (block_size_law.h);
//  - the pitch law: the empirical CDF of the pitches against Gamma(2, sigma)
//    at fixed cut points c sigma up to 16 sigma, exact binomial tails, so a
//    law right in the bulk and wrong in the tail (e.g. pitches capped at 10
//    sigma) fails at a sample count the line states; from blocks, each pitch
//    is only bounded (pitch_bounds_from_blocks) and the tails are taken at the
//    bounds (conservative);
//  - dependence at every scale: per anchor, the dispersion test
//    (cobinning.h) of the offset nearest p = 1/2 over batches of 2^k
//    consecutive samples for every k with at least 4 batches, so samples that
//    repeat or correlate at any lag up to a quarter of the sample count move
//    some batch variance.
// Samples are taken in the order given: the dispersion tests batch
// consecutive samples, so a sampler whose nearby samples are dependent fails
// them. Samples of several trials (every trial's samples together, trials in
// increasing order, the same number of samples in each) are interleaved
// first, sample j of every trial next to each other, so a sampler that
// ignores the trial index (every trial the same samples) puts equal samples
// side by side and fails the dispersion tests (docs/MATH.md §9).
#pragma once

#include <fmt/format.h>
#include <poslsh/input_error.h>
#include <poslsh/positional_hash.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "experiments/checks/check_verdict.h"

namespace poslsh {

// What the checks need of one sample: its largest block over [0, n) and its
// runs at the start, middle and end anchors (cobinning.h).
struct VerifySample {
  std::int64_t b_max = 0;
  std::array<std::int64_t, 3> runs{};
  // The sample's pitch P lies in [pitch_lo, pitch_hi]: equal bounds when it
  // came as a hash; from a partition, the bounds its blocks imply
  // (pitch_bounds_from_blocks); pitch_hi = inf when they imply none above.
  double pitch_lo = 0, pitch_hi = 0;
  std::int64_t trial = 0;
};

// What a partition of [0, n) into `blocks` blocks says of its pitch P:
// interior blocks (all but the first and the last) are whole cells, so m of
// them spanning `span` positions give m P - 1 < span < m P + 1 when P >= 1
// (no cell is empty); when every block is one position, P may also be below 1;
// an edge block of `length` positions is part of a cell, so P > length - 1.
struct PitchBounds {
  double lo, hi;
};
PitchBounds pitch_bounds_from_blocks(std::int64_t blocks, std::int64_t first_length,
                                     std::int64_t last_start, std::int64_t last_length,
                                     std::int64_t largest_block);

// One sample given as its hash (bin(i) = floor((i - shift) / pitch); pitch
// finite and > 0, shift finite, any value: the partition depends on it modulo
// the pitch only), over [0, n), n <= 2^50 (beyond, bins computed in double
// drift from the exact ones: unbiasedness.h).
VerifySample sample_of_hash(const PositionalHash& hash, std::int64_t n, std::int64_t trial);
// One sample given as its partition of [0, n): the starts of its blocks and
// then n, 0 = starts[0] < starts[1] < ... < starts.back() = n (what
// block_starts returns). Callers check the form (check_partition).
VerifySample sample_of_partition(const std::vector<std::int64_t>& starts, std::int64_t n,
                                 std::int64_t trial);

// Items of several trials (each trial's together, trials in order; Item has
// a `trial` member) reordered index-major, item j of every trial side by
// side. Throws InputError unless every trial has the same number of items.
template <typename Item>
std::vector<Item> interleave_by_trial(std::vector<Item> items) {
  std::vector<std::vector<Item>> by_trial;
  for (auto& s : items) {
    if (by_trial.empty() || by_trial.back().front().trial != s.trial) by_trial.emplace_back();
    by_trial.back().push_back(std::move(s));
  }
  for (const auto& trial : by_trial)
    if (trial.size() != by_trial.front().size())
      throw InputError(fmt::format(
          "trial {} has {} samples and trial {} has {}: every trial needs the same number",
          trial.front().trial, trial.size(), by_trial.front().front().trial,
          by_trial.front().size()));
  std::vector<Item> out;
  for (std::size_t j = 0; !by_trial.empty() && j < by_trial.front().size(); ++j)
    for (auto& trial : by_trial) out.push_back(std::move(trial[j]));
  return out;
}
std::vector<VerifySample> interleave_trials(std::vector<VerifySample> samples);

// ---- samples from arrays (the Python module) -----------------------------------

// The samples of hashes (pitch[k], shift[k]) in sampler order, interleaved by
// trial (empty `trial`: one trial). Throws ArgumentError naming pitch, shift
// or trial for a value the checks cannot use: pitch not finite and > 0, shift
// not finite, lengths that differ, a trial < 0 or below the one before it.
std::vector<VerifySample> samples_of_hashes(std::span<const double> pitch,
                                            std::span<const double> shift,
                                            std::span<const std::int64_t> trial, std::int64_t n);
// The samples of partitions (starts[k] as for sample_of_partition), likewise.
// Throws ArgumentError naming starts or trial.
std::vector<VerifySample> samples_of_partitions(
    const std::vector<std::vector<std::int64_t>>& starts, std::span<const std::int64_t> trial,
    std::int64_t n);
// Throws ArgumentError naming `starts` unless starts is a partition of [0, n)
// as sample_of_partition takes it (`index`: which sample, for the message).
void check_partition(std::span<const std::int64_t> starts, std::int64_t n, std::size_t index);

// ---- the checks ----------------------------------------------------------------

// A sparse sample set (`verify --sparse`): for each sample only the blocks
// that hold a list of anchors, so that a binning can be verified at n = 2^32
// and beyond without writing every block. The run at an anchor a is end - a
// (forward, a <= n / 2) or a - start + 1 (backward): all the co-binning tests
// need.
struct SparseSamples {
  std::vector<std::int64_t> anchors;            // increasing, the same for every sample
  std::vector<std::vector<std::int64_t>> runs;  // runs[i][j]: sample i at anchors[j]
  std::vector<std::int64_t> trials;             // the trial of each sample
};

struct VerifyOptions {
  std::int64_t n = 0;
  double sigma = 0;
  std::int64_t batch = 16;
  int points = 24;
  double alpha = kCheckFamilyAlpha;
};
// Throws ArgumentError naming n, sigma, batch, points or alpha unless n >= 4
// (and n <= max_n), sigma finite and > 0, batch and points >= 1, 0 < alpha < 1.
void check_verify_options(const VerifyOptions& options, std::int64_t max_n);

struct VerifyReport {
  std::int64_t samples = 0;     // samples the verdict rests on (whole batches)
  std::int64_t trials = 1;      // distinct trials among them
  double detectable_scale = 0;  // smallest |c - 1| found with power 0.99 (middle anchor)
  std::vector<CheckOutcome> outcomes;
};
// Throws InputError when there are fewer samples than one batch.
VerifyReport verify_samples(const std::vector<VerifySample>& samples, const VerifyOptions& options);

// The co-binning tests (mean, scale, dispersion) at every anchor of a sparse
// sample set, regions "at-<anchor>", and the dispersion over every scale.
// Throws InputError when there are fewer samples than one batch.
VerifyReport verify_sparse(const SparseSamples& samples, const VerifyOptions& options);

// The dependence-at-every-scale test on its own (also `poslsh power`'s lags
// family): cobinned[a][i] is sample i's co-binning indicator at offset t from
// anchor a (named anchors[a]); one line per anchor, the dispersion statistic
// over batches of 2, 4, ... consecutive samples (>= 4 batches each), level
// alpha split over anchors and scales.
std::vector<CheckOutcome> lag_dispersion_outcomes(const std::vector<std::vector<bool>>& cobinned,
                                                  const std::vector<std::string>& anchors,
                                                  std::int64_t n, double sigma, std::int64_t t,
                                                  double alpha);
// The offset that test uses: the one of cobin_offsets(n, sigma, points) whose
// co-binning probability is nearest 1/2.
std::int64_t lag_test_offset(std::int64_t n, double sigma, int points);

}  // namespace poslsh
