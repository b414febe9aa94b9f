// b_max without visiting every block (src/block_size.h) against the
// block-by-block oracle largest_block() of src/positional_hash.h.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include "block_size.h"
#include "positional_hash.h"
#include "rng.h"

namespace poslsh {
namespace {

// Test-only stream purpose, far from the library's.
constexpr auto kTestPurpose = static_cast<StreamPurpose>(0x7e57b10c);

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
  Stream rng(2024, 0, 0, kTestPurpose);
  PathCounts paths;
  for (int trial = 0; trial < 40000; ++trial) {
    const double pitch = stressed_pitch(rng);
    const PositionalHash h{pitch, stressed_shift(rng, pitch)};
    const auto n = static_cast<std::int64_t>(1 + rng.next_u64() % 3000);
    paths.add(expect_matches_oracle(h, n));
    if (HasFailure()) return;
  }
  for (const Path p : {Path::kSingleBlock, Path::kSmallInterior, Path::kLandings,
                       Path::kNearInteger, Path::kFullScan}) {
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

// Rounding decides block sizes when a bin edge u + k pitch falls within a few
// ulps of an integer; such hashes at large n take the near-integer or fallback
// paths and must still agree with the oracle.
TEST(LargestBlockSize, MatchesOracleWhereRoundingDecides) {
  Stream rng(99, 0, 0, kTestPurpose);
  const std::int64_t n = 1 << 18;
  PathCounts paths;
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
    paths.add(expect_matches_oracle({pitch, shift}, n));
  }
  EXPECT_GT(paths[Path::kNearInteger], 20);
  EXPECT_GT(paths[Path::kFullScan], 10);
}

TEST(LargestBlockSize, CostIsIndependentOfNForDrawnHashes) {
  const std::int64_t n = std::int64_t{1} << 30;
  std::int64_t total_measured = 0, full_scans = 0, hashes = 0;
  for (const double sigma : {0.5, 1.0, 4.0, 64.0, 256.0}) {
    for (std::uint64_t trial = 0; trial < 4000; ++trial) {
      const PositionalHash h = draw_hash(11, trial, 0, sigma);
      const LargestBlockScan scan = scan_largest_block(h, n);
      total_measured += scan.bins_measured;
      full_scans += scan.path == Path::kFullScan ? 1 : 0;
      ++hashes;
      // n >> pitch: the largest block is ceil(pitch) (pitches are never integers here).
      if (h.pitch >= 0.5) {
        EXPECT_EQ(scan.size, static_cast<std::int64_t>(std::ceil(h.pitch)));
      }
    }
  }
  // A generic hash measures the two end blocks and five bins per landing.
  EXPECT_EQ(full_scans, 0) << "the fallback must be rare";
  EXPECT_LT(static_cast<double>(total_measured) / static_cast<double>(hashes), 12.0);
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
