// `poslsh verify`: the checks for someone else's implementation. A researcher
// exports the hashes (sample,pitch,shift; bin = floor((i - shift) / pitch)) or
// the blocks (sample,start,end; every sample a partition of [0, n)) of their
// own sampler, and poslsh runs the checks of verification.h on them, without
// drawing anything itself. This file reads the tables; verification.h holds
// the checks, which the Python module runs on arrays too.
// Samples are taken in file order: the dispersion test batches consecutive
// samples. With a trial column (trial,sample,... : every trial's samples
// together, trials in increasing order, the same number of samples in each)
// the trials are interleaved first (verification.h says why).
#pragma once

#include <cstdint>
#include <vector>

#include "experiments/verify/verification.h"
#include "runner/csv_table.h"

namespace poslsh {

// Reads a `poslsh sample --blocks` style table: columns [trial,]sample,start,end,
// rows of one sample together (sample ids increasing), blocks in order, each
// sample exactly covering [0, n). Throws InputError naming the row
// for anything else (overlaps, gaps, unsorted blocks, a partial cover).
std::vector<VerifySample> samples_from_blocks(const CsvTable& table, std::int64_t n);
// Reads a `poslsh sample` style table: columns [trial,]sample,pitch,shift, one row per
// sample (ids increasing), pitch finite and > 0, shift finite. Throws
// InputError naming the row otherwise.
std::vector<VerifySample> samples_from_hashes(const CsvTable& table, std::int64_t n);

// Reads a sparse sample set (`verify --sparse`, SparseSamples of
// verification.h): one row trial,sample,anchor,start,end per (sample,
// anchor). Rows of one (trial, sample) together, trials non-decreasing,
// samples increasing within a trial, anchors increasing within a sample and
// the same list for every sample, 0 <= start <= anchor < end <= n; every
// trial the same number of samples. Samples come back trial-interleaved.
// Throws InputError naming the row otherwise.
SparseSamples samples_from_sparse(const CsvTable& table, std::int64_t n);

}  // namespace poslsh
