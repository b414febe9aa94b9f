// Co-binning: the identity E[M] = L* (MATH §2) tested directly, pair by pair.
//
// For one positional hash, positions i and i + t share a block with
// probability exactly exp(-t / sigma), for every i: the shift is uniform over
// one pitch, so the grid is stationary. Fix an anchor position a and a
// direction (forward or backward) and call the run R of a hash the number of
// positions from a onwards, a included, that lie in a's block. Then
//     1[a and a ± t share a block] = 1[t < R],   P(R > t) = exp(-t / sigma),
// i.e. R is geometric (P(R > t) = q^t, q = e^{-1/sigma}), and all offsets of
// one hash come from this one number. Hashes are i.i.d., so over H hashes:
//  - the count K_t of hashes co-binning (a, a ± t) is exactly
//    Binomial(H, p_t), p_t = exp(-t / sigma): an exact test per offset;
//  - counts at two offsets of the same hashes have the exact covariance
//    H (p_max(t,t') - p_t p_t'), so sum_t K_t has a known variance: the pooled
//    test of the kernel's scale (a pitch scaled by c moves every p_t the same
//    way, and the pooled count sees all of them at once);
//  - consecutive batches of m hashes have counts K_b ~ Binomial(m, p_t),
//    independent across batches, so sum_b (K_b - m p_t)^2 has exactly known
//    mean and variance: the dispersion test. Repeated hashes or a shift shared
//    by several hashes inflate it; a sampler can be unbiased hash by hash and
//    still fail it.
// The positions of one hash are NOT independent, which is why nothing here
// counts pairs of positions: the unit is the hash, one run per hash per anchor.
//
// Anchors: the start (a = 0, forward), the middle (a = floor(n / 2), forward)
// and the end (a = n - 1, backward) of [0, n). A shift not drawn over
// [0, delta) (e.g. always 0) breaks stationarity at the ends of the range and
// hardly at all in the middle, so all three are tested.
#pragma once

#include <poslsh/kernel.h>
#include <poslsh/positional_hash.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace poslsh {

enum class CobinRegion { kStart, kMiddle, kEnd };

const std::vector<CobinRegion>& all_cobin_regions();
std::string cobin_region_name(CobinRegion region);  // "start", "middle", "end"
// Throws InputError for any other name.
CobinRegion parse_cobin_region(const std::string& name);
// The anchor position of a region in [0, n).
std::int64_t cobin_anchor(CobinRegion region, std::int64_t n);

// The offsets tested at scale sigma: t = 1 and about `points` distinct
// integers evenly spread over [1, 6 sigma] (all of 1..6 sigma when there are
// fewer), each at most the room the anchors leave, floor(n / 2) - 1. (t = 1
// because an evenly spread grid can be all even, blind to positions rounded
// to a grid of 2, as float32 rounds them past 2^24.) Throws
// ArgumentError unless n >= 4, sigma > 0 finite, points >= 1.
std::vector<std::int64_t> cobin_offsets(std::int64_t n, double sigma, int points);
// The same for any kernel (poslsh/kernel.h), spread over [1, its reach]: 6
// sigma for laplace (the offsets above, bit for bit), else the first t at
// which k(t) <= e^-6, where ALiBi's 6 sigma puts it.
std::vector<std::int64_t> cobin_offsets(std::int64_t n, const Kernel& kernel, int points);

// exp(-t / sigma): the probability that two positions t apart share a block;
// k(t) under a kernel (the laplace kernel's is the same double).
double cobin_probability(double sigma, std::int64_t t);
double cobin_probability(const Kernel& kernel, std::int64_t t);

// The run of one hash at an anchor (see above): at least 1.
std::int64_t cobin_run(const PositionalHash& h, CobinRegion region, std::int64_t n);
// The run from any anchor a in [0, n), forward or backward.
std::int64_t cobin_run_at(const PositionalHash& h, std::int64_t a, bool backward, std::int64_t n);

// Anchors at large positions, 2^24 + 1, 2^31 + 1 and 2^32 + 1 (where float32
// stops holding every integer, and where 32-bit signed and unsigned positions
// overflow), those at most n / 2, so that every offset fits forward. Tested
// forward, like the middle anchor.
std::vector<std::int64_t> cobin_large_anchors(std::int64_t n);

// Counts over hashes at one anchor, accumulated run by run in hash order.
class CobinCounts {
 public:
  // Throws ArgumentError unless batch >= 1 and offsets are >= 1.
  CobinCounts(std::vector<std::int64_t> offsets, std::int64_t batch);
  void add_run(std::int64_t run);
  // One hash given as its co-binning indicator at each offset (in offsets()
  // order), for callers that read co-binning from somewhere other than a run.
  // Throws std::logic_error on a size mismatch.
  void add_cobinned(const std::vector<bool>& cobinned);

  const std::vector<std::int64_t>& offsets() const { return offsets_; }
  std::int64_t batch() const { return batch_; }
  // Hashes in whole batches: only these are counted (a trailing partial batch
  // is held back until it fills).
  std::int64_t hashes() const { return hashes_; }
  const std::vector<std::int64_t>& cobinned() const { return cobinned_; }
  // sum over batches of (count in the batch)^2, per offset.
  const std::vector<std::int64_t>& batch_sumsq() const { return batch_sumsq_; }

 private:
  void close_hash();  // a hash added: close the batch when it is full

  std::vector<std::int64_t> offsets_;
  std::int64_t batch_;
  std::int64_t hashes_ = 0, pending_ = 0;
  std::vector<std::int64_t> cobinned_, batch_sumsq_, current_;
};

// The pooled test over the offsets of one anchor: sum_t K_t = sum over hashes
// of Y = #{t : t < R}, whose exact law is P(Y >= j) = exp(-t_j / sigma) (t_j
// the j-th smallest offset). p-value: the Chernoff bound above with that law;
// z (reported, not tested): the standardised sum; ratio: observed/expected.
struct PooledScaleTest {
  double z = 0, p_value = 1, ratio = 1;
};
PooledScaleTest pooled_scale_test(std::span<const std::int64_t> offsets,
                                  std::span<const std::int64_t> cobinned, std::int64_t hashes,
                                  double sigma);
PooledScaleTest pooled_scale_test(std::span<const std::int64_t> offsets,
                                  std::span<const std::int64_t> cobinned, std::int64_t hashes,
                                  const Kernel& kernel);

// The smallest kernel-scale error |c - 1| (pitch scaled by c) that the pooled
// test at two-sided level alpha detects with probability `power` from `hashes`
// hashes at these offsets: the Chernoff critical deviation, cleared by the
// alternative's pooled count with that probability in its normal
// approximation (the larger of the errors needed for c > 1 and c < 1).
double detectable_scale_error(std::span<const std::int64_t> offsets, std::int64_t hashes,
                              double sigma, double alpha, double power);
double detectable_scale_error(std::span<const std::int64_t> offsets, std::int64_t hashes,
                              const Kernel& kernel, double alpha, double power);

}  // namespace poslsh
