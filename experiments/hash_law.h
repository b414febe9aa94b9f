// `poslsh hash-law`: the law of the hashes themselves, where the co-binning
// and block-size tables are blind: at every hash index a plan uses, across
// the whole 64-bit trial range, in the pitch tail that b_max at large n s
// reaches, at any sigma (odd powers of two and fractional slopes included).
//
// One CSV row per (sigma, probe, key, statistic): over `hashes` hashes, how
// many satisfy the statistic (`count`), and its expectation (`expected`,
// recomputed by the checker). Sound hashes of distinct (trial, index) pairs
// are i.i.d. (positional_hash.h), so every count is Binomial(hashes, p) with
// p known exactly:
//  - statistic "pitch<c": pitch < c sigma, p = 1 - (1 + c) e^-c (Gamma(2, sigma));
//  - statistic "pitch>=c": its complement, for the tail cuts (accurate there);
//  - statistic "shift<f": shift < f pitch, p = f (the shift is uniform on
//    [0, pitch));
//  - statistic "equal": a pair of hashes bit for bit equal, p = 0 (two sound
//    draws share all three uniforms with probability below 2^-106).
// The probes (hash k of trial t is draw(t, k, sigma)):
//  - "index", key k < indices: hash k of trials 0 .. trials-1, the pitch and
//    shift cuts: a defect confined to one hash index (an off-by-one in which
//    hash is special) moves one index's counts by the whole defect;
//  - "grid", key 0: every hash of the index probe pooled, the bulk cuts and
//    the tail cuts (pitch >= 8 .. 16 sigma, where about 1e-5 of the mass
//    lies at 14 sigma): a law cut or redrawn in its far tail;
//  - "span", key j in [0, 64): hash k < kSpanIndices of trial b and of trial
//    b + 2^j (mod 2^64) over kSpanBases bases b, "equal" pairs: a trial
//    index truncated, wrapped or cast to fewer bits makes them equal;
//  - "far", key 0: those far trials' hashes pooled, the bulk cuts: a stream
//    that breaks down at large trial numbers;
//  - "index-span" and "far-index": the same with hash k and hash k + 2^j of
//    one trial: an index truncated or wrapped, hashes repeated at a lag 2^j
//    (every 2, 64 or 4096 hashes), at any index a user can ask for.
// What no row sees: dependence between hashes that is neither equality nor a
// shift of one index's law (the co-binning dispersion tests look for it),
// collisions of the trial or index mapping at pairs other than 2^j apart,
// repeats at a lag that is not a power of two unless they also move a law,
// a defect at an index >= `indices` that leaves the pooled far laws alone,
// and defects in how hashes are binned or consumed (unbiasedness, attention).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/check_outcome.h"
#include "experiments/sampler_defect.h"
#include "runner/csv_table.h"

namespace poslsh {

const std::vector<std::string>& hash_law_columns();

// Bases and hash indices of the span probe: base 0 and kSpanBases - 1 bases
// spread over the 64-bit range (fixed, so every seed probes the same trials).
inline constexpr std::int64_t kSpanBases = 16;
inline constexpr std::int64_t kSpanIndices = 4;
std::uint64_t span_base(std::int64_t i);

struct HashLawSizes {
  std::int64_t indices = 512;  // hash indices k of the index probe
  std::int64_t trials = 4096;  // trials per index
};

// The index and grid probes' rows alone: what a sampler reached hash by hash
// only below `indices` (the control sampler of control_sampler.h) can be
// tested with.
std::vector<std::vector<std::string>> hash_law_index_rows(double sigma, const HashLawSizes& sizes,
                                                          const HashDrawer& draw);
// The rows of one sigma, probes in the order index, grid, span, far,
// index-span, far-index.
std::vector<std::vector<std::string>> hash_law_cell_rows(double sigma, const HashLawSizes& sizes,
                                                         const HashDrawer& draw);

// The checks of `poslsh check` on a hash-law table, alpha in five equal shares
// (hash-index, hash-bulk, pitch-tail, trial-span, index-span), each Bonferroni over the
// rows of its kind; one line per kind and sigma: every row's exact two-sided
// binomial p-value must reach its level ("equal" rows: no pair equal).
// Throws InputError for an unusable table.
std::vector<CheckOutcome> check_hash_law_table(const CsvTable& table,
                                               double alpha = kCheckFamilyAlpha);

// The sound law's probability of a hash statistic as a hash-law table names
// it ("pitch<0.5", "shift<0.25", "pitch>=14", "equal"); false for an unknown
// name.
bool hash_law_statistic_probability(const std::string& name, double& p);

}  // namespace poslsh
