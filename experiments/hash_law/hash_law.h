// `poslsh hash-law`: the law of the hashes themselves, where the co-binning
// and block-size tables are blind: at every hash index a plan uses, across
// the whole 64-bit trial range, in the pitch tail that b_max at large n s
// reaches, and at every sigma of the equivariance ladder below (every ALiBi
// head of Press et al. up to 64 heads, quarter octaves from 2^-8 to 2^16).
//
// The law is sigma-free: a sound hash is pitch = sigma g, shift = pitch u with
// g ~ Gamma(2, 1) and u ~ U[0, 1) drawn from the (seed, trial, index) stream
// alone (positional_hash.cpp), so hash k of trial t at any sigma is the same
// (g, u) rescaled. The table therefore tests two things separately:
//  - the law of (g, u): each sweep cell (one sigma, at position c of the
//    --sigma list) draws its own trials, c T .. c T + T - 1 (T = trials), so
//    that the cells' hashes are distinct draws and the checker pools each
//    count over the cells: one test per statistic, not one per sigma of the
//    same uniforms;
//  - equivariance: pitch(sigma) / sigma and shift(sigma) / pitch(sigma) equal
//    those at sigma = 1 for the same (trial, index), at the cell's sigma and
//    at every sigma of the ladder. Sound hashes agree to rounding (relative
//    1e-12 is allowed; a sound draw is within a few ulp), so a law checked at
//    one sigma holds at every sigma the ladder covers, and a defect confined
//    to a range of sigma is seen wherever the ladder has a point in it.
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
//  - statistic "equal": hashes bit for bit equal, p = 0: two sound draws are
//    bit-equal with probability at most kEqualPairBound (2^-96; see below);
//  - statistic "unequal": hashes that break equivariance, p = 0 exactly.
// The probes (hash k of trial t is draw(t, k, sigma); c T is the cell's
// first trial):
//  - "index", key k < indices: hash k of trials c T .. c T + T - 1, the pitch
//    and shift cuts: a defect confined to one hash index (an off-by-one in
//    which hash is special) moves one index's counts by the whole defect;
//  - "grid", key 0: every hash of the index probe pooled, the bulk cuts and
//    the tail cuts (pitch >= 8 .. 16 sigma); pooled over the cells, 2^24
//    hashes at the default 8 sigma: a law cut, redrawn or clamped in its far
//    tail (a clamp at 14 sigma leaves none of 82 expected beyond 15 sigma);
//  - "span", key j in [0, 64): hash k < kSpanIndices of trial b and of trial
//    b + 2^j (mod 2^64) over kSpanBases bases b (span_base(c kSpanBases + i)),
//    "equal" pairs: a trial index truncated, wrapped or cast to fewer bits
//    makes them equal;
//  - "far", key 0: those far trials' hashes pooled, the bulk cuts: a stream
//    that breaks down at large trial numbers;
//  - "index-span" and "far-index": the same with hash k and hash k + 2^j of
//    one trial (each far hash counted once): an index truncated or wrapped,
//    hashes repeated at a lag 2^j, at any index a user can ask for;
//  - "duplicate", key 0, "equal": every hash of the index probe and of a deep
//    probe (indices .. indices + kDeepIndices - 1 of the cell's first two
//    trials), sorted by their (pitch, shift) bits, counting the hashes
//    bit-equal to another: a repeat at any lag below indices + kDeepIndices,
//    any packing of (trial, index) into one key of stride below that, any
//    trial-major packing of stride below T;
//  - "equivariance", key 0: the cell's sigma; key m >= 1: the ladder's sigmas
//    in [2^(m-9), 2^(m-8)); kEquivarianceTrials x kEquivarianceIndices hashes
//    of the cell's trials compared at each, "unequal";
//  - "batched", "unequal": the batched drawer users call (draw_hashes, which
//    convergence, attention, `poslsh sample` and the Python module read)
//    against the scalar one every other probe reads, bit for bit, on the
//    cell's first kEquivarianceTrials trials at each s of kBatchedSizes: key 0
//    hash k of the batch against draw(t, k), key 1 the batch for s against the
//    first s of the batch for 2 s (nested across s). With it, every law the
//    other probes test holds for the batched drawer too;
//  - "blocks", "unequal": the blocks the library cuts from the same hashes
//    (key 0: block_starts, what MaskMean, lsh_attention and `poslsh sample
//    --blocks` read; key 1: the largest block, largest_block_size, what
//    blocksize and poslsh.b_max report, clipped last block included) against
//    their definition, in code that shares nothing with the library's
//    binning (reference_blocks.h), at each n of kBlocksProbeN: a binning
//    defect that keeps the partition law (block ids from 1-based positions)
//    moves no count above and is seen here.
// What no row sees: dependence between hashes that is neither equality nor a
// shift of one index's law (the co-binning dispersion tests look for it),
// repeats and key collisions outside the drawn pairs (a lag or stride beyond
// indices + kDeepIndices that is not a power of two), a defect confined to a
// sigma no ladder point or cell has (a single value off the ladder, a range
// narrower than a quarter octave outside the ALiBi heads), a defect at an
// index >= `indices` that leaves the pooled far laws alone, a law defect that
// is equivariant and moves no cut (e.g. a clamp above 16 sigma), and defects
// in how hashes are binned or consumed (unbiasedness, attention).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/checks/check_outcome.h"
#include "experiments/defects/planted_defect.h"
#include "experiments/defects/sampler_defect.h"
#include "runner/csv_table.h"

namespace poslsh {

const std::vector<std::string>& hash_law_columns();

// Bases and hash indices of the span probe: base 0 (cell 0) and bases spread
// over the 64-bit range (fixed, so every seed probes the same trials).
inline constexpr std::int64_t kSpanBases = 16;
inline constexpr std::int64_t kSpanIndices = 4;
std::uint64_t span_base(std::int64_t i);

// Indices of the deep probe, past the index probe's, in the cell's first two
// trials.
inline constexpr std::int64_t kDeepIndices = std::int64_t{1} << 16;
// Hashes of the equivariance probe: its first trials x first indices.
inline constexpr std::int64_t kEquivarianceTrials = 4;
inline constexpr std::int64_t kEquivarianceIndices = 4;
// The s at which the batched probe draws whole batches (and 2 s, for nesting).
inline constexpr std::int64_t kBatchedSizes[] = {1, 3, 64, 1000};
// The n at which the blocks probe cuts each hash (off the tiles, and tiny).
// (n = 5, 17: the clipped last block is often the largest).
inline constexpr std::int64_t kBlocksProbeN[] = {1, 2, 5, 17, 257, 4099};
// Relative difference of the standardized values allowed by rounding.
inline constexpr double kEquivarianceTolerance = 1e-12;
// P(two sound hashes of distinct (trial, index) are bit-equal) <= 2^-96: the
// pitch fl(sigma g) takes any one double with probability <= 2^-44 (g <= 74
// has density <= 1/e, and the g that round to one pitch lie in an interval
// of width <= 2^-45, with the 2^-53 grids of the uniforms adding less than
// that), and given the pitch the shift fl(pitch u) any one value with
// probability <= 2^-52 (u on the 2^-53 grid, at most two u per value).
inline constexpr double kEqualPairBound = 0x1p-96;

// The sigmas hash-law accepts: pitches and shifts of every hash stay normal,
// finite doubles, so the standardized values are exact to rounding.
inline constexpr double kHashLawSigmaMin = 1e-250;
inline constexpr double kHashLawSigmaMax = 1e250;
// Throws UsageError naming `option` for a sigma outside that range.
void require_hash_law_sigma(const std::string& option, const std::vector<double>& sigma);

// The equivariance ladder, ascending: 2^(8h/H) for 1 <= h <= H <= 64, the
// get_slopes scales of alibi_head_sigmas(H) for H <= 64, and 2^(j/4) for
// j = -32 .. 64.
const std::vector<double>& equivariance_ladder();

struct HashLawSizes {
  std::int64_t indices = 512;  // hash indices k of the index probe
  std::int64_t trials = 4096;  // trials per index
};

// The index and grid probes' rows alone (no duplicate search): what a sampler
// reached hash by hash only below `indices` (the control sampler of
// control_sampler.h) can be tested with. `cell`: the sigma's position in the
// sweep, which picks its trials.
std::vector<std::vector<std::string>> hash_law_index_rows(double sigma, std::int64_t cell,
                                                          const HashLawSizes& sizes,
                                                          const HashDrawer& draw);
// What users read besides the scalar drawer, each compared bit for bit with
// what the scalar drawer's hashes define (probes batched and blocks).
struct HashReaders {
  BatchedDrawer batched;  // draw_hashes: against draw, hash for hash, and nested across s
  BlockCutter blocks;     // block_starts: against reference_block_starts (reference_blocks.h)
};
// The readers of a (seed, defect): the library's, with the defect planted.
HashReaders hash_readers(std::uint64_t seed, const PlantedDefect& defect);

// The rows of one sigma, probes in the order index, grid, duplicate, span,
// far, index-span, far-index, equivariance, then batched and blocks for the
// readers given.
std::vector<std::vector<std::string>> hash_law_cell_rows(double sigma, std::int64_t cell,
                                                         const HashLawSizes& sizes,
                                                         const HashDrawer& draw,
                                                         const HashReaders& readers = {});

// The checks of `poslsh check` on a hash-law table, alpha in seven equal
// shares (hash-index, hash-bulk, pitch-tail, trial-span, index-span,
// duplicates, equivariance), each Bonferroni over the rows of its kind after
// pooling; one line per kind. Rows of one (probe, key, statistic) are pooled
// over the sigmas (the cells' hashes are distinct draws); equivariance rows
// stay per sigma. Every row's exact two-sided binomial p-value must reach its
// level ("equal": no pair equal; "unequal": none). A line is n/a when no row
// of it could reach its level at any count (too few hashes for a FAIL).
// Throws InputError for an unusable table.
std::vector<CheckOutcome> check_hash_law_table(const CsvTable& table,
                                               double alpha = kCheckFamilyAlpha);

// The sound law's probability of a hash statistic as a hash-law table names
// it ("pitch<0.5", "shift<0.25", "pitch>=14", "equal", "unequal"); false for
// an unknown name.
bool hash_law_statistic_probability(const std::string& name, double& p);

}  // namespace poslsh
