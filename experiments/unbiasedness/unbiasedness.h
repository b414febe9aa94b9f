// `poslsh unbiasedness`: the sharpest test the theory allows, E[M] = L* pair
// by pair (include/poslsh/cobinning.h says why it is exact and what unit is independent).
//
// One CSV row per (n, sigma, region, t): over H hashes, how many put the
// anchor of the region and the position t away from it in one block
// (`cobinned`), the
// expectation H exp(-t/sigma) (`expected`, recomputed by the checker), and the
// sum over consecutive batches of `batch` hashes of the squared batch counts
// (`batch_cobinned_sumsq`, for the dispersion test).
//
// The H hashes come from kUnbiasednessTrials trials, interleaved: hash k of
// the stream is hash floor(k / T) of trial k mod T. Sound hashes of distinct
// (trial, index) pairs are i.i.d., so every law of cobinning.h holds as for
// one trial; but a batch of m consecutive hashes holds the same hash indices
// of every trial, so a sampler that ignores the trial index puts T copies of
// each hash in a batch and the dispersion test sees a batch variance about T
// times the binomial one (docs/MATH.md §9), while dependence inside a trial
// (repeated or correlated neighbours) still falls inside one batch.
#pragma once


#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/unbiasedness/cobinning_checks.h"
#include "experiments/unbiasedness/cobinning.h"
#include "experiments/unbiasedness/consumer_cobinning.h"
#include "experiments/experiment.h"
#include "experiments/defects/sampler_defect.h"
#include "runner/csv_table.h"
#include "runner/sweep.h"

namespace poslsh {

// The largest n of a table: 2^50, as for block sizes. Beyond it the sound
// sampler's bins, floor((i - shift) / pitch) in double, are off by a
// position often enough for these tests to see: at n = 2^53 the middle and
// end anchors at sigma = 1 fail with 2^19 hashes; at 2^50 they pass.
inline constexpr std::int64_t kMaxUnbiasednessN = std::int64_t{1} << 50;

// Trials the unbiasedness hashes come from (interleaved; see above).
inline constexpr std::int64_t kUnbiasednessTrials = 2;

const std::vector<std::string>& unbiasedness_columns();

// Hash k of the interleaved stream: draw(k mod T, k / T, sigma).
PositionalHash draw_interleaved(const HashDrawer& draw, std::int64_t k, double sigma);

// An anchor of an unbiasedness table, named in its region column:
//  - "start", "middle", "end": cobin_anchor of the row's n (end backward);
//  - "at-P": position P in [0, n), backward when P > n / 2 (the large anchors
//    of cobin_large_anchors, and any anchor `poslsh verify --sparse` reads);
//  - "<consumer>:start" etc.: that consumer's probe (consumer_cobinning.h)
//    at the anchor of n' = consumer_probe_n(n), the row's n staying the n of
//    the table it belongs to;
//  - "first-hash:start" etc.: the start, middle and end anchors of n over
//    hash 0 of many trials (first_hash_cell_rows).
struct CobinAnchor {
  std::string label;
  std::int64_t position = 0;
  bool backward = false;
  std::int64_t range = 0;  // the positions [0, range) the offsets must stay in
};
// Throws InputError for a label of none of these forms.
CobinAnchor parse_cobin_anchor(const std::string& label, std::int64_t n);
// The hash-side anchors of a table at n: start, middle, end and the large ones.
std::vector<CobinAnchor> hash_side_anchors(std::int64_t n);

// The law a cell's counts are tested against: exp(-t/sigma), or a kernel
// (poslsh/kernel.h, `--kernel`) at scale sigma. A kernel's rows carry its
// spec in a last column, `kernel`, which the checks read back; ALiBi's rows
// have none (the tables of a laplace run are those without the option).
struct CobinLaw {
  double sigma = 0;
  std::optional<Kernel> kernel = std::nullopt;
  double probability(std::int64_t t) const;
  std::vector<std::int64_t> offsets(std::int64_t n, int points) const;
};

// The rows of one anchor's counts.
std::vector<CsvRow> unbiasedness_rows(std::int64_t n, const CobinLaw& law, const CobinAnchor& anchor,
                                      const CobinCounts& counts);
std::vector<CsvRow> unbiasedness_rows(std::int64_t n, double sigma, const CobinAnchor& anchor,
                                      const CobinCounts& counts);
std::vector<CsvRow> unbiasedness_rows(std::int64_t n, double sigma, CobinRegion region,
                                      const CobinCounts& counts);

// "first-hash": the region prefix of first_hash_cell_rows.
inline const std::string kFirstHashRegion = "first-hash";
// Hash 0 of trials 0, 1, ..., min(hashes, kFirstHashTrials) - 1 (whole
// batches) at the start, middle and end anchors of n. Sound hashes of
// distinct trials are i.i.d., so these counts have the laws of cobinning.h
// like the stream's. They see a bug confined to one hash of every trial (the
// first hash drawn with a zero shift, or from a wrong pitch law): in the
// stream such a hash is one in s, too few to move a count; here it is every
// hash. A zero shift pins a block edge to position 0, so the start anchor's
// run is the whole pitch, P(R > t) = e^(-t/sigma) (1 + t/sigma).
inline constexpr std::int64_t kFirstHashTrials = 8192;
std::vector<CsvRow> first_hash_cell_rows(std::int64_t n, double sigma, std::int64_t hashes,
                                         std::int64_t batch, int points, const HashDrawer& draw,
                                         BinningBug bug = BinningBug::kNone);
std::vector<CsvRow> first_hash_cell_rows(std::int64_t n, const CobinLaw& law, std::int64_t hashes,
                                         std::int64_t batch, int points, const HashDrawer& draw,
                                         BinningBug bug = BinningBug::kNone);

// The hashes the consumers are probed with per cell: the first
// min(hashes, kConsumerHashes) of the stream, in whole batches.
inline constexpr std::int64_t kConsumerHashes = 4096;

// Rows of cell (n, sigma): hashes draw_interleaved(draw, k, sigma), k < hashes,
// at every region, `points` offsets (cobin_offsets), batches of `batch`
// hashes; then the first hashes' rows (first_hash_cell_rows) and the
// consumers' rows (consumer_cell_rows).
std::vector<CsvRow> unbiasedness_cell_rows(std::int64_t n, double sigma, std::int64_t hashes,
                                           std::int64_t batch, int points, const HashDrawer& draw,
                                           BinningBug bug = BinningBug::kNone);
std::vector<CsvRow> unbiasedness_cell_rows(std::int64_t n, const CobinLaw& law, std::int64_t hashes,
                                           std::int64_t batch, int points, const HashDrawer& draw,
                                           BinningBug bug = BinningBug::kNone);
// The same counts read back from every consumer (consumer_cobinning.h) at
// n' = consumer_probe_n(n), over the first kConsumerHashes hashes (whole
// batches; none when that is less than a batch, or when n >= kConsumerMaxN,
// the contexts MaskMean refuses), regions "<consumer>:<region>".
inline constexpr std::int64_t kConsumerMaxN = std::int64_t{1} << 32;
std::vector<CsvRow> consumer_cell_rows(std::int64_t n, double sigma, std::int64_t hashes,
                                       std::int64_t batch, int points, const HashDrawer& draw,
                                       BinningBug bug = BinningBug::kNone);
std::vector<CsvRow> consumer_cell_rows(std::int64_t n, const CobinLaw& law, std::int64_t hashes,
                                       std::int64_t batch, int points, const HashDrawer& draw,
                                       BinningBug bug = BinningBug::kNone);

// The checks of `poslsh check` on an unbiasedness table: its rows read into
// one CobinGroup per (n, sigma, region), then check_cobin_groups
// (cobinning_checks.h: mean, scale and dispersion, alpha split in three shares).
// Throws InputError for an unusable table (a wrong anchor or
// expected value, counts out of range, NaN, groups with mixed hash counts).
std::vector<CheckOutcome> check_unbiasedness_table(const CsvTable& table,
                                                   double alpha = kCheckFamilyAlpha);

}  // namespace poslsh
