// `poslsh verify`: the checks for someone else's implementation. A researcher
// exports the hashes (sample,pitch,shift; bin = floor((i - shift) / pitch)) or
// the blocks (sample,start,end; every sample a partition of [0, n)) of their
// own sampler, and poslsh runs, without drawing anything itself:
//  - the co-binning checks (unbiasedness.h: mean, scale, dispersion) at the
//    start, middle and end anchors, one run per sample per anchor;
//  - the block-size law: each sample's largest block against F(b) (the law of
//    b_max for s = 1), exact binomial tails of the empirical CDF at the law's
//    cut points, where the law applies (block_size_law.h);
//  - the pitch law (hashes only): the empirical CDF of the pitches against
//    Gamma(2, sigma) at fixed cut points c sigma up to 16 sigma, exact
//    binomial tails, so a law right in the bulk and wrong in the tail (e.g.
//    pitches capped at 10 sigma) fails at a sample count the line states;
//  - dependence at every scale: per anchor, the dispersion test
//    (cobinning.h) of the offset nearest p = 1/2 over batches of 2^k
//    consecutive samples for every k with at least 4 batches, so samples that
//    repeat or correlate at any lag up to a quarter of the sample count move
//    some batch variance.
// Samples are taken in file order: the dispersion test batches consecutive
// samples, so a sampler whose nearby samples are dependent fails it. With a
// trial column (trial,sample,... : every trial's samples together, trials in
// increasing order, the same number of samples in each) the trials are
// interleaved first, sample j of every trial next to each other, so a sampler
// that ignores the trial index (every trial the same samples) puts equal
// samples side by side and fails the dispersion tests (docs/MATH.md §9).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "runner/csv_table.h"

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

// Samples of several trials (in trial order, each trial's together) reordered
// sample j of every trial side by side: trial-major to index-major. Throws
// InputError unless every trial has the same number of samples.
std::vector<VerifySample> interleave_trials(std::vector<VerifySample> samples);

// Reads a `poslsh sample --blocks` style table: columns [trial,]sample,start,end,
// rows of one sample together (sample ids increasing), blocks in order, each
// sample exactly covering [0, n). Throws InputError naming the row
// for anything else (overlaps, gaps, unsorted blocks, a partial cover).
std::vector<VerifySample> samples_from_blocks(const CsvTable& table, std::int64_t n);
// Reads a `poslsh sample` style table: columns [trial,]sample,pitch,shift, one row per
// sample (ids increasing), pitch finite and > 0, shift finite. Throws
// InputError naming the row otherwise.
std::vector<VerifySample> samples_from_hashes(const CsvTable& table, std::int64_t n);

// A sparse sample set (`verify --sparse`): for each sample only the blocks
// that hold a list of anchors, one row trial,sample,anchor,start,end per
// (sample, anchor), so that a binning can be verified at n = 2^32 and beyond
// without writing every block. The run at an anchor a is end - a (forward,
// a <= n / 2) or a - start + 1 (backward): all the co-binning tests need.
struct SparseSamples {
  std::vector<std::int64_t> anchors;            // increasing, the same for every sample
  std::vector<std::vector<std::int64_t>> runs;  // runs[i][j]: sample i at anchors[j]
  std::vector<std::int64_t> trials;             // the trial of each sample
};
// Rows of one (trial, sample) together, trials non-decreasing, samples
// increasing within a trial, anchors increasing within a sample and the same
// list for every sample, 0 <= start <= anchor < end <= n; every trial the
// same number of samples. Samples come back trial-interleaved (as above).
// Throws InputError naming the row otherwise.
SparseSamples samples_from_sparse(const CsvTable& table, std::int64_t n);

struct VerifyOptions {
  std::int64_t n = 0;
  double sigma = 0;
  std::int64_t batch = 16;
  int points = 24;
  double alpha = kCheckFamilyAlpha;
};
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
