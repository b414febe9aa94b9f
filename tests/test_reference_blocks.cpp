// The oracles' blocks (experiments/oracles/reference_blocks.h) against the library's
// (block_starts, block_begin, block_end): equal on sound hashes everywhere
// the library's guarantees reach (stressed pitches, positions up to 2^50, a
// pitch below 2^-13), and a brute-force walk of the definition at small n;
// unequal where a binning bug is planted. The two share no code, so the
// equality is evidence for both; the planted bug shows the comparison can fail.
#include <gtest/gtest.h>
#include <poslsh/positional_hash.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cli_harness.h"
#include "experiments/unbiasedness/consumer_cobinning.h"
#include "experiments/oracles/reference_blocks.h"
#include "runner/csv_table.h"

namespace poslsh {
namespace {

// The blocks of [0, n) by walking every position's bin: the definition at its
// plainest (O(n)), for small n.
std::vector<std::int64_t> brute_force_starts(const PositionalHash& h, std::int64_t n) {
  std::vector<std::int64_t> starts = {0};
  for (std::int64_t i = 1; i < n; ++i)
    if (std::floor((static_cast<double>(i) - h.shift) / h.pitch) !=
        std::floor((static_cast<double>(i - 1) - h.shift) / h.pitch))
      starts.push_back(i);
  starts.push_back(n);
  return starts;
}

TEST(ReferenceBlocks, EqualTheLibraryAndTheBruteForceWalkOnSoundHashes) {
  int compared = 0;
  for (const double sigma : {0.3, 1.0, 2.5, 16.0, 300.0})
    for (std::uint64_t trial = 0; trial < 20; ++trial)
      for (const auto& h : draw_hashes(11, trial, 8, sigma))
        for (const std::int64_t n : {1, 2, 63, 257, 4099}) {
          const auto reference = reference_block_starts(h, n);
          ASSERT_EQ(reference, block_starts(h, n)) << "sigma " << sigma << " n " << n;
          ASSERT_EQ(reference, brute_force_starts(h, n)) << "sigma " << sigma << " n " << n;
          ++compared;
        }
  EXPECT_EQ(compared, 5 * 20 * 8 * 5);
}

TEST(ReferenceBlocks, EqualTheLibraryAtLargePositionsAndTinyPitches) {
  const std::int64_t big = std::int64_t{1} << 50;
  for (const auto& h : draw_hashes(3, 0, 64, 8.0))
    for (const std::int64_t i : {big / 2, big / 2 + 1, big - 1, (std::int64_t{1} << 24) + 1}) {
      EXPECT_EQ(reference_block_begin(h, i), block_begin(h, i)) << i;
      EXPECT_EQ(reference_block_end(h, i, big), block_end(h, i, big)) << i;
    }
  const PositionalHash tiny{0x1p-20, 0x1p-21};  // every position its own block
  for (const std::int64_t i : {std::int64_t{0}, std::int64_t{5}, big - 1}) {
    EXPECT_EQ(reference_block_begin(tiny, i), i);
    EXPECT_EQ(reference_block_end(tiny, i, big), i + 1);
  }
}

TEST(ReferenceBlocks, DisagreeWithABinningThatKeepsTheLaw) {
  int differ = 0, hashes = 0;
  for (const auto& h : draw_hashes(5, 0, 32, 4.0)) {
    differ += consumer_block_starts(h, 257, Form::kSymmetric, BinningBug::kOneBasedBins) !=
              reference_block_starts(h, 257);
    EXPECT_EQ(consumer_block_starts(h, 257, Form::kSymmetric, BinningBug::kNone),
              reference_block_starts(h, 257));
    ++hashes;
  }
  EXPECT_EQ(differ, hashes);  // every hash has a start inside (0, 257) at sigma 4
}

// The blocks `poslsh sample --blocks` exports are the definition's, block for
// block; with one-based-bins planted they are not.
using ReferenceBlocksCli = testing::CliTest;

std::vector<std::vector<std::int64_t>> exported_starts(const CsvTable& t, std::int64_t s) {
  std::vector<std::vector<std::int64_t>> starts(static_cast<std::size_t>(s));
  for (std::size_t r = 0; r < t.size(); ++r)
    starts[static_cast<std::size_t>(t.integer(r, "sample", 0, s - 1))].push_back(
        t.integer(r, "start", 0, 1 << 20));
  return starts;
}

TEST_F(ReferenceBlocksCli, SampleBlocksAreTheDefinitionsBlocks) {
  const std::int64_t n = 1001, s = 12;
  const auto hashes = draw_hashes(9, 3, s, 6.5);
  for (const std::string defect : {"sound", "one-based-bins"}) {
    const std::string out = path(defect + ".csv");
    ASSERT_EQ(cli("sample --n 1001 --sigma 6.5 --s 12 --seed 9 --trial 3 --blocks --plant-defect " +
                  defect + " --out " + out)
                  .exit_code,
              0);
    const auto starts = exported_starts(CsvTable::read(out), s);
    int equal = 0;
    for (std::int64_t k = 0; k < s; ++k) {
      auto reference = reference_block_starts(hashes[static_cast<std::size_t>(k)], n);
      reference.pop_back();  // the export lists each block's start (and end), not n
      equal += starts[static_cast<std::size_t>(k)] == reference;
    }
    EXPECT_EQ(equal, defect == "sound" ? s : 0) << defect;
  }
}

}  // namespace
}  // namespace poslsh
