// b_max without visiting every block (include/poslsh/block_size.h) against the
// block-by-block oracle largest_block() of include/poslsh/positional_hash.h.
#include <gtest/gtest.h>
#include <poslsh/block_size.h>
#include <poslsh/positional_hash.h>
#include <poslsh/rng.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

namespace poslsh {
namespace {

// Test-only stream purpose, far from the library's.
constexpr auto kBlockScanTestPurpose = static_cast<StreamPurpose>(0x7e57b10c);

using Path = LargestBlockScan::Path;

// Compares with the oracle; returns the path taken so that tests can check
// that every path was exercised.
Path expect_matches_oracle(const PositionalHash& h, std::int64_t n) {
  const std::int64_t oracle = largest_block(h, n);
  const LargestBlockScan fast = scan_largest_block(h, n);
  EXPECT_EQ(fast.size, oracle) << "pitch=" << std::hexfloat << h.pitch << " shift=" << h.shift
                               << std::defaultfloat << " n=" << n;
  return fast.path;
}

struct PathCounts {
  std::map<Path, int> count;
  void add(Path p) { ++count[p]; }
  int operator[](Path p) const { return count.contains(p) ? count.at(p) : 0; }
};

// A shift in [0, pitch) that stresses the ends of that range.
double stressed_shift(Stream& rng, double pitch) {
  switch (rng.next_u64() % 6) {
    case 0:
      return 0.0;
    case 1:
      return pitch * 1e-12 * rng.uniform();
    case 2:
      return std::nextafter(pitch, 0.0);
    case 3:
      return pitch * (1 - 1e-12 * rng.uniform_pos());
    case 4: {  // integer shift
      const double u = std::round(pitch * rng.uniform());
      return u < pitch ? u : 0.0;
    }
    default:
      return pitch * rng.uniform();
  }
}

// A pitch in one of the regimes the closed form treats differently.
double stressed_pitch(Stream& rng) {
  const double m = std::floor(1 + 40 * rng.uniform());
  switch (rng.next_u64() % 8) {
    case 0:
      return std::exp(std::log(1e-3) + rng.uniform() * std::log(1e6));  // 1e-3 .. 1e3
    case 1:
      return m;  // exact integer
    case 2:
      return m + 1e-13 * rng.uniform_pos();  // just above
    case 3:
      return m - 1e-13 * rng.uniform_pos();  // just below
    case 4:
      return std::nextafter(m, 0.0);
    case 5:
      return m + 1.0 / std::floor(2 + 30 * rng.uniform());  // rational: periodic sizes
    case 6:
      return 0.5 + rng.uniform();  // around 1
    default:
      return 0.5 + 60 * rng.uniform();
  }
}

TEST(LargestBlockSize, MatchesOracleOnStressedHashesAtSmallN) {
  Stream rng(2024, 0, 0, kBlockScanTestPurpose);
  PathCounts paths;
  for (int trial = 0; trial < 40000; ++trial) {
    const double pitch = stressed_pitch(rng);
    const PositionalHash h{pitch, stressed_shift(rng, pitch)};
    const auto n = static_cast<std::int64_t>(1 + rng.next_u64() % 3000);
    paths.add(expect_matches_oracle(h, n));
    if (HasFailure()) return;
  }
  for (const Path p : {Path::kSingleBlock, Path::kSmallInterior, Path::kLandings}) {
    EXPECT_GT(paths[p], 100) << "path " << static_cast<int>(p) << " barely exercised";
  }
}

TEST(LargestBlockSize, MatchesOracleOnDrawnHashes) {
  for (const double sigma : {0.05, 0.3, 1.0, 4.0, 16.0, 64.0}) {
    for (const std::int64_t n : {1, 2, 3, 7, 64, 1000, 5003}) {
      for (std::uint64_t trial = 0; trial < 300; ++trial) {
        expect_matches_oracle(draw_hash(7, trial, 0, sigma), n);
      }
    }
  }
}

TEST(LargestBlockSize, MatchesOracleForPitchBeyondN) {
  for (const std::int64_t n : {1, 2, 5, 17}) {
    for (const double pitch : {17.0, 17.5, 40.0, 1e6, 1e15}) {
      for (const double frac : {0.0, 0.3, 0.5, 0.999}) {
        expect_matches_oracle({pitch, pitch * frac}, n);
      }
      expect_matches_oracle({pitch, std::nextafter(pitch, 0.0)}, n);
    }
  }
}

TEST(LargestBlockSize, HandComputedPartialBlocks) {
  // pitch 2.5, shift 0.2 on [0, 10): bins {0} {1,2} {3,4,5} {6,7} {8,9}(clipped).
  EXPECT_EQ(largest_block_size({2.5, 0.2}, 10), 3);
  // First block [0, ceil(u)) = {0,1,2,3} is the largest when u is 3.9 of pitch 4.5.
  EXPECT_EQ(largest_block_size({4.5, 3.9}, 40), 5);
  EXPECT_EQ(largest_block_size({4.5, 3.9}, 4), 4);     // only the first block, clipped at n
  EXPECT_EQ(largest_block_size({4.5, 3.9}, 6), 4);     // {0..3} then {4,5} clipped
  EXPECT_EQ(largest_block_size({3.0, 0.0}, 1000), 3);  // integer pitch: every block 3
  EXPECT_EQ(largest_block_size({3.0, 0.0}, 1), 1);
  EXPECT_EQ(largest_block_size({0.25, 0.1}, 1 << 20), 1);
  // A long interior (> 16 bins) with no landing: pitch 2 + 1e-6, all blocks 2.
  EXPECT_EQ(largest_block_size({2.000001, 0.5}, 200), 2);
  EXPECT_EQ(largest_block({2.000001, 0.5}, 200), 2);
}

// The definition, literally: every position's bin compared with its
// predecessor's (O(n); independent of the grid candidates largest_block uses).
std::int64_t brute_force_largest(const PositionalHash& h, std::int64_t n) {
  std::int64_t best = 0, run = 0, prev = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t b = h.bin(i);
    run = (i > 0 && b == prev) ? run + 1 : 1;
    prev = b;
    best = std::max(best, run);
  }
  return best;
}

// Rounding decides block sizes when a bin edge u + k pitch falls within
// (n + pitch) 2^-52 of an integer; such hashes must still agree with the oracle.
TEST(LargestBlockSize, MatchesOracleWhereRoundingDecides) {
  Stream rng(99, 0, 0, kBlockScanTestPurpose);
  const std::int64_t n = 1 << 18;
  for (int trial = 0; trial < 120; ++trial) {
    const double m = std::floor(2 + 8 * rng.uniform());
    const double ulps = std::ldexp(1.0, -50) * n;
    double pitch = m;
    switch (trial % 4) {
      case 0:
        pitch = m + ulps * rng.uniform();
        break;
      case 1:
        pitch = m - ulps * rng.uniform();
        break;
      case 2:
        pitch = m + 1e-3 * ulps * rng.uniform();
        break;
      default:
        pitch = m;
        break;
    }
    double shift = 0.0;
    if (trial % 3 != 0) shift = std::floor(pitch * rng.uniform());
    const PositionalHash h{pitch, shift};
    EXPECT_EQ(scan_largest_block(h, n).size, brute_force_largest(h, n))
        << "pitch=" << std::hexfloat << pitch << " shift=" << shift;
  }
}

// Small analogues of what defeated the former near-integer path at n = 2^40 ..
// 2^50: at n <= 2^20 the roundings of bin() matter for edges within about
// n 2^-52 of an integer, so the pitches sit at or a few ulps from integers and
// simple fractions p/q (the alignments then revisit q values, drifting by a
// few ulps per bin), or drift across an integer by about 1/n per bin; the
// shifts put edges on integers, a few ulps off them, at the pitch, or on ties
// of the rounding of i - u. Compared with the literal definition.
double nudged(double x, int ulps) {
  for (; ulps > 0; --ulps) x = std::nextafter(x, 1e300);
  for (; ulps < 0; ++ulps) x = std::nextafter(x, 0.0);
  return x;
}

double analogue_pitch(Stream& rng, std::int64_t n) {
  const double m = std::floor(1 + 33 * rng.uniform());
  const auto q = static_cast<double>(1 + rng.next_u64() % 12);
  const auto p = static_cast<double>(rng.next_u64() % static_cast<std::uint64_t>(q));
  const int ulps = static_cast<int>(rng.next_u64() % 13) - 6;
  switch (rng.next_u64() % 5) {
    case 4:
      return nudged(m, -1 - static_cast<int>(rng.next_u64() % 8));  // just below an integer
    case 0:
      return nudged(m, ulps);  // at or next to an integer (f = 0 or f near 0, 1)
    case 1:
      return nudged(m + p / q, ulps);  // a simple fraction
    case 2: {                          // alignments drift across an integer over the whole range
      const double drift = (rng.uniform() - 0.5) * 8 / static_cast<double>(n);
      return std::max(0.5, m + p / q + drift);
    }
    default:  // drift of a few rounding units per bin
      return std::max(0.5, m + p / q + (rng.uniform() - 0.5) * std::ldexp(1.0, -40));
  }
}

// A fraction of a few rounding units of i - u at a binade E just below n
// (2^(E-53)): with a pitch a few ulps below an integer, the block that holds
// the last position before i - u reaches 2^E then often has ceil(pitch) + 1
// positions (u is rounded up at E and not at E - 1, and the block's first
// edge lies just below an integer).
double ceil_plus_one_shift(Stream& rng, double pitch, std::int64_t n) {
  const double j = std::floor(pitch * rng.uniform());
  const int e = std::ilogb(static_cast<double>(n)) - 56 - static_cast<int>(rng.next_u64() % 4);
  return std::min(pitch, j + std::ldexp(static_cast<double>(rng.next_u64() % 256), e));
}

double analogue_shift(Stream& rng, double pitch, std::int64_t n) {
  const double j = std::floor(pitch * rng.uniform());  // an integer below pitch
  const int ulps = static_cast<int>(rng.next_u64() % 9) - 4;
  switch (rng.next_u64() % 9) {
    case 7:
      return ceil_plus_one_shift(rng, pitch, n);
    case 8: {  // the edges pass through multiples of 1/q near a bin k* < n / pitch
      const auto q = static_cast<double>(1 + rng.next_u64() % 6);
      const double drift = pitch - std::round(pitch * q) / q;  // per bin
      const double k_star = rng.uniform() * static_cast<double>(n) / pitch;
      double t = j - drift * k_star;
      if (rng.next_u64() % 2 == 0) {  // and u is a tie of i - u's rounding there
        const int e = std::ilogb(std::max(1.0, k_star * pitch)) - 53;
        t = std::ldexp(2 * std::floor(std::ldexp(t, -e - 1)) + 1, e);
      }
      if (t < 0) t += pitch * std::ceil(-t / pitch);
      return std::clamp(t, 0.0, pitch);
    }
    case 0:
      return 0.0;
    case 1:
      return pitch;
    case 2:
      return nudged(pitch, -1 - static_cast<int>(rng.next_u64() % 4));
    case 3:
      return std::clamp(nudged(j, ulps), 0.0, pitch);
    case 4: {  // an odd multiple of 2^-b: a tie when i - u is rounded at some binade
      const int b = 30 + static_cast<int>(rng.next_u64() % 24);
      const double t = j + std::ldexp(static_cast<double>(2 * (rng.next_u64() % 1024) + 1), -b);
      return std::min(t, pitch);
    }
    case 5: {  // edges on multiples of 1/q
      const auto q = static_cast<double>(1 + rng.next_u64() % 12);
      return std::min(pitch, std::floor(pitch * q * rng.uniform()) / q);
    }
    default:
      return pitch * rng.uniform();
  }
}

TEST(LargestBlockSize, MatchesBruteForceOnScaledAnaloguesOfLargeN) {
  Stream rng(4747, 0, 0, kBlockScanTestPurpose);
  int above_ceil = 0, checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    // n log-uniform in [2^6, 2^20], sometimes a power of two or next to one.
    auto n = static_cast<std::int64_t>(std::exp2(6 + 14 * rng.uniform()));
    if (trial % 5 == 0) n = (std::int64_t{1} << (6 + trial % 15)) + (trial % 3) - 1;
    double pitch = analogue_pitch(rng, n);
    PositionalHash h{pitch, analogue_shift(rng, pitch, n)};
    if (trial % 3 == 2) {  // the family where blocks of ceil(pitch) + 1 appear
      pitch = nudged(std::floor(2 + 14 * rng.uniform()), -1 - static_cast<int>(trial % 7));
      h = {pitch, ceil_plus_one_shift(rng, pitch, n)};
    }
    const LargestBlockScan scan = scan_largest_block(h, n);
    const std::int64_t truth = brute_force_largest(h, n);
    ASSERT_EQ(scan.size, truth) << "pitch=" << std::hexfloat << h.pitch << " shift=" << h.shift
                                << std::defaultfloat << " n=" << n;
    ++checked;
    if (truth < n && truth > static_cast<std::int64_t>(std::ceil(pitch))) ++above_ceil;
  }
  EXPECT_EQ(checked, 3000);
  // Rounding makes some blocks one longer than ceil(pitch) (never in real
  // arithmetic); the analogues must contain such hashes.
  EXPECT_GT(above_ceil, 5);
  RecordProperty("blocks_above_ceil_pitch", above_ceil);
}

TEST(LargestBlockSize, MatchesBruteForceOnDrawnHashesUpTo2To20) {
  for (const double sigma : {0.5, 1.0, 4.0, 16.0, 64.0}) {
    for (std::uint64_t trial = 0; trial < 40; ++trial) {
      const PositionalHash h = draw_hash(20, trial, 0, sigma);
      const std::int64_t n = (std::int64_t{1} << (10 + trial % 11)) - static_cast<int>(trial % 2);
      ASSERT_EQ(scan_largest_block(h, n).size, brute_force_largest(h, n))
          << "sigma=" << sigma << " trial=" << trial << " n=" << n;
    }
  }
}

// Work is counted, not timed: bins measured with bin() plus runs decided in
// closed form, at n = 2^30 .. 2^50. For drawn hashes the mean does not grow
// with n (about 7 at every n); for any hash the work is bounded by a few per
// group of bins (2^a, 2^(a+1)], hence by a constant for n <= 2^50: integer
// pitches (every run walked), pitches a few ulps from an integer (no landing,
// or blocks of ceil(pitch) + 1 possible) and pitches near 1/2 are the worst.
TEST(LargestBlockSize, CostIsIndependentOfNForDrawnHashes) {
  std::vector<double> means;
  for (const int log2n : {30, 40, 47, 50}) {
    const std::int64_t n = std::int64_t{1} << log2n;
    std::int64_t total = 0, total_runs = 0, worst = 0, hashes = 0;
    for (const double sigma : {0.5, 1.0, 4.0, 16.0, 64.0, 256.0}) {
      for (std::uint64_t trial = 0; trial < 4000; ++trial) {
        const PositionalHash h = draw_hash(11, trial, 0, sigma);
        const LargestBlockScan scan = scan_largest_block(h, n);
        total += scan.bins_measured + scan.runs;
        total_runs += scan.runs;
        worst = std::max(worst, scan.bins_measured + scan.runs);
        ++hashes;
        // n >> pitch: some block has ceil(pitch) positions (pitches are never
        // integers here), and rounding adds at most one.
        if (h.pitch >= 0.5) {
          const auto c = static_cast<std::int64_t>(std::ceil(h.pitch));
          EXPECT_GE(scan.size, c);
          EXPECT_LE(scan.size, c + 1);
        }
      }
    }
    const double mean = static_cast<double>(total) / static_cast<double>(hashes);
    means.push_back(mean);
    EXPECT_LT(mean, 10.0) << "n=2^" << log2n;
    EXPECT_LT(static_cast<double>(total_runs) / static_cast<double>(hashes), 2.0);
    EXPECT_LE(worst, 150) << "n=2^" << log2n;
    RecordProperty("mean_work_2^" + std::to_string(log2n), std::to_string(mean));

    Stream rng(77, static_cast<std::uint64_t>(log2n), 0, kBlockScanTestPurpose);
    std::int64_t adversarial_worst = 0;
    for (int trial = 0; trial < 3000; ++trial) {
      const double m = std::floor(1 + 60 * rng.uniform());
      double pitch = m;
      switch (trial % 5) {
        case 1:
          pitch = nudged(m, 1 + trial % 4);
          break;
        case 2:
          pitch = nudged(m, -1 - trial % 4);
          break;
        case 3:
          pitch = 0.5 + 1e-3 * rng.uniform();
          break;
        case 4:
          pitch = m + std::ldexp(rng.uniform(), -30 - trial % 22);
          break;
        default:
          break;
      }
      const double shift = trial % 3 == 0   ? 0.0
                           : trial % 3 == 1 ? std::nextafter(pitch, 0.0)
                                            : pitch * rng.uniform();
      const LargestBlockScan scan = scan_largest_block({pitch, shift}, n);
      adversarial_worst = std::max(adversarial_worst, scan.bins_measured + scan.runs);
    }
    EXPECT_LE(adversarial_worst, 400) << "n=2^" << log2n;
    RecordProperty("worst_work_2^" + std::to_string(log2n), std::to_string(adversarial_worst));
  }
  EXPECT_LT(means.back(), 1.25 * means.front()) << "the mean work grows with n";
}

// At n = 2^47 and 2^50 the definition cannot be run in full. Every block in
// windows around each binade change of i - u (where rounding is largest, and
// the only places a block can exceed ceil(pitch)), at the start and at random
// places is measured with bin(): none may exceed the scan's answer, blocks of
// ceil(pitch) must be seen, and so must a block of ceil(pitch) + 1 when the
// scan reports one (about 6 in 10^4 drawn hashes at n = 2^50, sigma = 16).
TEST(LargestBlockSize, WindowsAtLargeNAgreeWithTheScan) {
  Stream rng(5050, 0, 0, kBlockScanTestPurpose);
  for (const int log2n : {47, 50}) {
    const std::int64_t n = std::int64_t{1} << log2n;
    int above_ceil = 0;
    for (std::uint64_t trial = 0; trial < 20000; ++trial) {
      const PositionalHash h = draw_hash(12, trial, 0, 16.0);
      const std::int64_t size = scan_largest_block(h, n).size;
      const auto c = static_cast<std::int64_t>(std::ceil(h.pitch));
      ASSERT_GE(size, c);
      ASSERT_LE(size, c + 1);
      if (size == c && trial >= 100) continue;  // windows for 100 hashes and every c + 1
      above_ceil += size > c ? 1 : 0;
      std::int64_t seen = 0;
      const auto window = [&](std::int64_t centre) {
        const std::int64_t lo = std::clamp<std::int64_t>(centre - 2000, 1, n - 1);
        const std::int64_t hi = std::clamp<std::int64_t>(centre + 2000, 1, n - 1);
        std::int64_t start = lo;  // first position of a complete block
        while (start < hi && h.bin(start - 1) == h.bin(start)) ++start;
        for (std::int64_t i = start + 1; i <= hi; ++i) {
          if (h.bin(i) != h.bin(i - 1)) {
            seen = std::max(seen, i - start);
            start = i;
          }
        }
      };
      for (int e = 2; e < log2n; ++e)
        window(static_cast<std::int64_t>(h.shift) + (std::int64_t{1} << e));
      window(0);
      for (int r = 0; r < 8; ++r)
        window(static_cast<std::int64_t>(rng.uniform() * static_cast<double>(n)));
      EXPECT_LE(seen, size) << "pitch=" << std::hexfloat << h.pitch << " shift=" << h.shift;
      // Blocks of ceil(pitch) make a fraction f of all bins.
      if (size > c || h.pitch - std::floor(h.pitch) > 0.05) {
        EXPECT_EQ(seen, size) << "pitch=" << std::hexfloat << h.pitch << " shift=" << h.shift;
      }
    }
    if (log2n == 50) {
      EXPECT_GT(above_ceil, 3);
    }
    RecordProperty("above_ceil_2^" + std::to_string(log2n), above_ceil);
  }
}

TEST(LargestBlockSize, SetOfHashesTakesTheMaximum) {
  const std::vector<PositionalHash> hashes = draw_hashes(5, 3, 64, 8.0);
  std::int64_t expected = 0;
  for (const auto& h : hashes) expected = std::max(expected, largest_block(h, 4096));
  EXPECT_EQ(b_max(hashes, 4096), expected);
  EXPECT_EQ(b_max(hashes, 4096), largest_block(hashes, 4096));
  EXPECT_EQ(b_max(std::span<const PositionalHash>{}, 10), 0);
}

TEST(LargestBlockSize, RejectsInvalidArguments) {
  EXPECT_THROW(largest_block_size({2.0, 0.5}, 0), std::invalid_argument);
  EXPECT_THROW(largest_block_size({2.0, 0.5}, (std::int64_t{1} << 50) + 1), std::invalid_argument);
  EXPECT_THROW(largest_block_size({0.0, 0.0}, 10), std::invalid_argument);
  EXPECT_THROW(largest_block_size({-1.0, 0.0}, 10), std::invalid_argument);
  EXPECT_THROW(largest_block_size({std::numeric_limits<double>::infinity(), 0.0}, 10),
               std::invalid_argument);
  EXPECT_THROW(largest_block_size({2.0, -0.1}, 10), std::invalid_argument);
  EXPECT_THROW(largest_block_size({2.0, 2.5}, 10), std::invalid_argument);
  EXPECT_THROW(largest_block_size({2.0, std::nan("")}, 10), std::invalid_argument);
}

}  // namespace
}  // namespace poslsh
