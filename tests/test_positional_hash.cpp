#include <gtest/gtest.h>
#include <poslsh/positional_hash.h>
#include <poslsh/rng.h>

#include <cmath>

#include "core/gamma2.h"  // a private header
#include "experiments/unbiasedness/cobinning.h"

namespace poslsh {
namespace {

using detail::gamma2_from_uniforms;

// Checks a partition against the definition bin(i) = floor((i - shift)/pitch).
void expect_valid_partition(const PositionalHash& h, std::int64_t n) {
  const auto st = block_starts(h, n);
  ASSERT_GE(st.size(), 2u);
  EXPECT_EQ(st.front(), 0);
  EXPECT_EQ(st.back(), n);
  const auto max_size = static_cast<std::int64_t>(std::floor(h.pitch)) + 1;
  for (std::size_t b = 0; b + 1 < st.size(); ++b) {
    ASSERT_LT(st[b], st[b + 1]) << "empty or unordered block";
    EXPECT_LE(st[b + 1] - st[b], max_size) << "pitch " << h.pitch;
    const std::int64_t bin = h.bin(st[b]);
    for (std::int64_t i = st[b]; i < st[b + 1]; ++i) ASSERT_EQ(h.bin(i), bin) << "i=" << i;
    if (st[b + 1] < n) {
      ASSERT_NE(h.bin(st[b + 1]), bin);
    }
  }
}

TEST(PositionalHash, PartitionsAreContiguousCoveringAndBounded) {
  for (double sigma : {0.05, 0.5, 1.0, 4.0, 37.0, 1000.0})
    for (std::int64_t n : {1, 2, 7, 64, 1000})
      for (std::uint64_t k = 0; k < 50; ++k) expect_valid_partition(draw_hash(9, 0, k, sigma), n);
}

TEST(PositionalHash, EdgeCasesOfTheGrid) {
  expect_valid_partition({1.0, 0.0}, 10);  // integer pitch, edges on integers
  expect_valid_partition({1.0, 0.999999999}, 10);
  expect_valid_partition({3.0, 0.0}, 10);
  expect_valid_partition({2.5, 2.4999999999}, 11);
  expect_valid_partition({1e-3, 5e-4}, 20);  // many empty bins between positions
  expect_valid_partition({1e9, 3.0}, 10);    // one cut inside [0, n)
  expect_valid_partition({1e9, 5e8}, 10);    // one block larger than n: clipped
  EXPECT_EQ(block_starts({1e9, 5e8}, 10), (std::vector<std::int64_t>{0, 10}));
  EXPECT_EQ(block_starts({1e9, 3.0}, 10), (std::vector<std::int64_t>{0, 3, 10}));
  EXPECT_EQ(largest_block(PositionalHash{2.0, 0.5}, 9), 2);
}

TEST(PositionalHash, LargestBlockMatchesPartition) {
  for (std::uint64_t k = 0; k < 200; ++k) {
    const auto h = draw_hash(3, 1, k, 6.0);
    const auto st = block_starts(h, 300);
    std::int64_t best = 0;
    for (std::size_t b = 0; b + 1 < st.size(); ++b) best = std::max(best, st[b + 1] - st[b]);
    EXPECT_EQ(largest_block(h, 300), best);
  }
}

TEST(PositionalHash, StreamsAreNestedAndScaleWithSigma) {
  const auto few = draw_hashes(42, 3, 4, 8.0);
  const auto many = draw_hashes(42, 3, 64, 8.0);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(few[k].pitch, many[k].pitch);
    EXPECT_EQ(few[k].shift, many[k].shift);
  }
  const auto wide = draw_hashes(42, 3, 4, 16.0);
  for (int k = 0; k < 4; ++k) {
    EXPECT_DOUBLE_EQ(wide[k].pitch, 2.0 * few[k].pitch);
    EXPECT_DOUBLE_EQ(wide[k].shift, 2.0 * few[k].shift);
  }
  // Different trials and seeds give different hashes.
  EXPECT_NE(draw_hash(42, 3, 0, 8.0).pitch, draw_hash(42, 4, 0, 8.0).pitch);
  EXPECT_NE(draw_hash(42, 3, 0, 8.0).pitch, draw_hash(43, 3, 0, 8.0).pitch);
}

TEST(PositionalHash, StreamOutputIsPinned) {
  // The generator is part of the file format: a change here changes every
  // published result, so it must be deliberate. Values are SplitMix64 outputs
  // of the keyed state (independently computable from rng.h's definition).
  Stream a(0, 0, 0, StreamPurpose::kHash), b(0, 0, 0, StreamPurpose::kHash);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a.next_u64(), b.next_u64());
  const std::uint64_t key = Stream::key(0, 0, 0, StreamPurpose::kHash);
  Stream c(0, 0, 0, StreamPurpose::kHash);
  EXPECT_EQ(c.next_u64(), mix64(key + 0x9e3779b97f4a7c15ULL));
  EXPECT_EQ(mix64(0), 0u);  // the SplitMix64 finaliser fixes zero
  EXPECT_EQ(mix64(1), 0x5692161d100b05e5ULL);
}

TEST(PositionalHash, UniformsStayInTheirIntervals) {
  Stream s(1, 2, 3, StreamPurpose::kHash);
  for (int i = 0; i < 100000; ++i) {
    const double u = s.uniform(), v = s.uniform_pos();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_GT(v, 0.0);
    ASSERT_LE(v, 1.0);
  }
}

TEST(PositionalHash, ZeroPitchPairIsMappedToTheSmallestOtherPitch) {
  // U1 = U2 = 1 (probability 2^-106) would give G = -0.0: pitch 0, NaN bins.
  EXPECT_EQ(gamma2_from_uniforms(1.0, 1.0), 0x1p-53);
  // That is the smallest G of every other pair, so no other draw moves.
  const double below_one = 1 - 0x1p-53;
  EXPECT_EQ(gamma2_from_uniforms(below_one, 1.0), 0x1p-53);
  EXPECT_EQ(gamma2_from_uniforms(1.0, below_one), 0x1p-53);
  EXPECT_GT(gamma2_from_uniforms(below_one, below_one), 0x1p-53);
  EXPECT_GT(gamma2_from_uniforms(1 - 0x1p-52, 1.0), 0x1p-53);
  Stream rng(6, 0, 0, StreamPurpose::kHash);
  for (int i = 0; i < 10000; ++i) {
    const double u1 = rng.uniform_pos(), u2 = rng.uniform_pos();
    ASSERT_EQ(gamma2_from_uniforms(u1, u2), -(std::log(u1) + std::log(u2)));
  }
  // draw_hash uses the rule: its pitch is sigma G of the stream's first two uniforms.
  for (std::uint64_t k = 0; k < 100; ++k) {
    Stream s(3, 4, k, StreamPurpose::kHash);
    const double u1 = s.uniform_pos(), u2 = s.uniform_pos();
    EXPECT_EQ(draw_hash(3, 4, k, 16.0).pitch, 16.0 * gamma2_from_uniforms(u1, u2));
  }
  // The clamped pitch is a valid hash: bin() is finite and monotone.
  const PositionalHash h{16.0 * gamma2_from_uniforms(1.0, 1.0), 0.0};
  EXPECT_GT(h.pitch, 0.0);
  EXPECT_EQ(h.bin(0), 0);
  EXPECT_EQ(h.bin(1), std::int64_t{1} << 49);
  EXPECT_EQ(largest_block(h, 1000), 1);
}

TEST(PositionalHash, RejectsBadParameters) {
  EXPECT_THROW(validate_hash_parameters(0, 1.0, 1), std::invalid_argument);
  EXPECT_THROW(validate_hash_parameters(1, 0.0, 1), std::invalid_argument);
  EXPECT_THROW(validate_hash_parameters(1, -2.0, 1), std::invalid_argument);
  EXPECT_THROW(validate_hash_parameters(1, NAN, 1), std::invalid_argument);
  EXPECT_THROW(validate_hash_parameters(1, INFINITY, 1), std::invalid_argument);
  EXPECT_THROW(validate_hash_parameters(1, 1.0, 0), std::invalid_argument);
  EXPECT_NO_THROW(validate_hash_parameters(1, 1.0, 1));
}

// A pitch of 2^-20 at position 2^50 puts (i - shift) / pitch at 2^70, past the
// int64 range of bin(): block_begin and block_end used to walk (or hang) over
// positions whose bins all cast to one value. With pitch < 1 every position is
// its own block, at the anchors the co-binning test uses up to n = 2^50.
TEST(PositionalHash, TinyPitchAtLargePositionsGivesSingletonBlocks) {
  const PositionalHash h{0x1p-20, 0x1p-21};
  const std::int64_t a = std::int64_t{1} << 50, n = std::int64_t{1} << 51;
  EXPECT_EQ(block_end(h, a, n), a + 1);
  EXPECT_EQ(block_begin(h, a), a);
  EXPECT_EQ(cobin_run_at(h, a, false, n), 1);
  EXPECT_EQ(cobin_run_at(h, a, true, n), 1);
}

}  // namespace
}  // namespace poslsh
