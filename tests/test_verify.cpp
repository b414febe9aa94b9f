// `poslsh verify` on samples written by the sound sampler and by planted
// defects, and on malformed files.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poslsh/argument_error.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "cli_harness.h"
#include "experiments/defects/sampler_defect.h"
#include "experiments/verify/verify.h"
#include "runner/cli_common.h"

namespace poslsh {
namespace {

// Writes the blocks (or hashes) of `count` samples of a (possibly defective) sampler.
void write_samples(const std::string& path, bool blocks, std::int64_t n, double sigma,
                   std::int64_t count, SamplerDefect defect, std::uint64_t seed = 5) {
  std::ofstream out(path);
  out << (blocks ? "sample,start,end\n" : "sample,pitch,shift\n");
  for (std::int64_t k = 0; k < count; ++k) {
    const PositionalHash h = draw_hash(seed, 0, static_cast<std::uint64_t>(k), sigma, defect);
    if (!blocks) {
      out << k << ',' << format_value(h.pitch) << ',' << format_value(h.shift) << '\n';
      continue;
    }
    const auto st = block_starts(h, n);
    for (std::size_t b = 0; b + 1 < st.size(); ++b)
      out << k << ',' << st[b] << ',' << st[b + 1] << '\n';
  }
}

class VerifyCli : public testing::CliTest {
 protected:
  // Writes `text` to m.csv and expects `verify INPUT_FLAG m.csv --n N --sigma 2`
  // to refuse it: exit code 2, one line on stderr that mentions `mention`.
  void expect_file_refused(const std::string& input_flag, std::int64_t n, const std::string& text,
                           const std::string& mention) const {
    std::ofstream(path("m.csv")) << text;
    expect_usage_error(fmt::format("verify {} {} --n {} --sigma 2", input_flag, path("m.csv"), n),
                       mention);
  }
};

// False alarm of each passing run: the family-wise 1e-3 of `verify` (fixed seeds).
TEST_F(VerifyCli, SoundSampleBlocksFromTheCliPass) {
  ASSERT_EQ(
      cli("sample --n 200 --sigma 4 --s 8192 --blocks --seed 3 --out " + path("b.csv")).exit_code,
      0);
  const auto r = cli("verify --blocks " + path("b.csv") + " --n 200 --sigma 4");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("8192 samples"), std::string::npos) << r.out;
  // n = 200 is far too short for the asymptotic law of b_max: said, not tested.
  EXPECT_NE(r.out.find("n/a   law[n=200,sigma=4,s=1]"), std::string::npos) << r.out;
}

// The block-size law needs n >> samples x sigma: hashes make that cheap.
TEST_F(VerifyCli, BlockSizeLawIsTestedWhereItApplies) {
  ASSERT_EQ(cli("sample --n 1048576 --sigma 4 --s 8192 --seed 3 --out " + path("h.csv")).exit_code,
            0);
  const auto r = cli("verify --hashes " + path("h.csv") + " --n 1048576 --sigma 4");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS  law[n=1048576,sigma=4,s=1]"), std::string::npos) << r.out;
  write_samples(path("g.csv"), false, 1048576, 4, 8192, SamplerDefect::kGamma3Pitch);
  const auto g = cli("verify --hashes " + path("g.csv") + " --n 1048576 --sigma 4");
  EXPECT_NE(g.out.find("FAIL  law[n=1048576,sigma=4,s=1]"), std::string::npos) << g.out;
}

TEST_F(VerifyCli, SoundHashesPassAndAgreeWithTheirBlocks) {
  write_samples(path("h.csv"), false, 300, 6, 8192, SamplerDefect::kNone);
  write_samples(path("b.csv"), true, 300, 6, 8192, SamplerDefect::kNone);
  const auto h = cli("verify --hashes " + path("h.csv") + " --n 300 --sigma 6");
  const auto b = cli("verify --blocks " + path("b.csv") + " --n 300 --sigma 6");
  EXPECT_EQ(h.exit_code, 0) << h.out;
  // Same samples, same statistics: identical check lines, but for the pitch
  // law, which the hashes give and the blocks only bound.
  const auto without_pitch_law = [](const std::string& out) {
    std::string kept, line;
    std::istringstream in(out.substr(out.find('\n') + 1));
    while (std::getline(in, line))
      if (line.find("pitch-law[") == std::string::npos && line.rfind("checks:", 0) != 0)
        kept += line + "\n";
    return kept;
  };
  EXPECT_EQ(without_pitch_law(h.out), without_pitch_law(b.out));
  EXPECT_NE(h.out.find("PASS  pitch-law[sigma=6]"), std::string::npos) << h.out;
  EXPECT_NE(b.out.find("PASS  pitch-law[sigma=6]: 8192 pitches bounded by their blocks"),
            std::string::npos)
      << b.out;
}

// The pitch bounds a partition implies hold the pitch that drew it: small
// pitches (all blocks one position), ones near n, and ones far beyond it.
TEST(Verify, PitchBoundsFromBlocksHoldThePitch) {
  for (const double sigma : {0.3, 1.0, 4.0, 64.0, 5000.0})
    for (const std::int64_t n : {8, 100, 4096})
      for (std::uint64_t k = 0; k < 2000; ++k) {
        const PositionalHash h = draw_hash(9, 0, k, sigma);
        const auto st = block_starts(h, n);
        std::int64_t largest = 0;
        for (std::size_t b = 0; b + 1 < st.size(); ++b)
          largest = std::max(largest, st[b + 1] - st[b]);
        const auto blocks = static_cast<std::int64_t>(st.size()) - 1;
        const PitchBounds p = pitch_bounds_from_blocks(blocks, st[1], st[st.size() - 2],
                                                       n - st[st.size() - 2], largest);
        ASSERT_LE(p.lo, h.pitch) << sigma << " " << n << " " << k;
        ASSERT_GE(p.hi, h.pitch) << sigma << " " << n << " " << k;
      }
}

// The same tail defect seen through blocks alone: a partition bounds its
// pitch to within 2 / (interior blocks), so capped pitches fail from about
// the hash count; sound blocks pass; blocks that bound no pitch from above
// (n far below sigma) leave the line n/a.
TEST_F(VerifyCli, PitchCappedAtTenSigmaFailsThePitchLawFromBlocks) {
  for (const std::string defect : {"sound", "pitch-cap-10sigma"}) {
    ASSERT_EQ(cli("sample --n 2048 --sigma 64 --s 32768 --blocks --plant-defect " + defect +
                  " --out " + path("b.csv"))
                  .exit_code,
              0);
    const auto r = cli("verify --blocks " + path("b.csv") + " --n 2048 --sigma 64");
    const bool sound = defect == "sound";
    EXPECT_EQ(r.exit_code, sound ? 0 : 1) << r.out;
    EXPECT_NE(r.out.find(std::string(sound ? "PASS" : "FAIL") + "  pitch-law[sigma=64]"),
              std::string::npos)
        << r.out;
  }
  ASSERT_EQ(cli("sample --n 8 --sigma 1000 --s 64 --blocks --out " + path("w.csv")).exit_code, 0);
  const auto w = cli("verify --blocks " + path("w.csv") + " --n 8 --sigma 1000 --batch 4");
  EXPECT_NE(w.out.find("n/a   pitch-law[sigma=1000]: no sample bounds its pitch"),
            std::string::npos)
      << w.out << w.err;
}

// Writes `count` sound hashes in which sample k is a copy of sample k - lag
// whenever k mod 2 lag >= lag: every run of `lag` samples repeated once.
void write_repeated_runs(const std::string& path, std::int64_t count, std::int64_t lag,
                         double sigma) {
  std::ofstream out(path);
  out << "sample,pitch,shift\n";
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t src = k % (2 * lag) >= lag ? k - lag : k;
    const PositionalHash h = draw_hash(5, 0, static_cast<std::uint64_t>(src), sigma);
    out << k << ',' << format_value(h.pitch) << ',' << format_value(h.shift) << '\n';
  }
}

// Dependence at lags the batches of 16 never see: runs of 32 (and 64) repeated
// once pass every co-binning line but fail the dispersion over batches of 2^k.
TEST_F(VerifyCli, RepeatsAtLongLagsFailTheDispersionOverAllScales) {
  for (const std::int64_t lag : {32, 64}) {
    write_repeated_runs(path("r.csv"), 1 << 16, lag, 16);
    const auto r = cli("verify --hashes " + path("r.csv") + " --n 1048576 --sigma 16");
    EXPECT_EQ(r.exit_code, 1) << lag << "\n" << r.out;
    EXPECT_EQ(r.out.find("FAIL  cobin-"), std::string::npos) << lag << "\n" << r.out;
    EXPECT_NE(
        r.out.find(fmt::format("FAIL  dispersion-lags[n=1048576,sigma=16,start]: 65536 "
                               "samples, offset t = 12 (p = 0.472) over batches of 2..16384")),
        std::string::npos)
        << r.out;
  }
}

// A pitch law right in the bulk and wrong in the tail: pitches redrawn above
// 10 sigma (none above it, where the law puts 11 e^-10 = 5e-4 of them). The
// line states the sample count from which this fails (25377 at the default
// level); 2^15 samples are past it, and the sound sampler passes there.
TEST_F(VerifyCli, PitchCappedAtTenSigmaFailsThePitchLawAtTheStatedCount) {
  std::ofstream out(path("c.csv"));
  out << "sample,pitch,shift\n";
  for (std::uint64_t k = 0; k < (1u << 15); ++k) {
    PositionalHash h = draw_hash(5, 0, k, 16.0);
    for (std::uint64_t j = 1; h.pitch > 160; ++j) h = draw_hash(5, j, k, 16.0);
    out << k << ',' << format_value(h.pitch) << ',' << format_value(h.shift) << '\n';
  }
  out.close();
  const auto r = cli("verify --hashes " + path("c.csv") + " --n 1048576 --sigma 16");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL  pitch-law[sigma=16]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("worst at 10 sigma: fraction above 0 vs law 0.0004994"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("pitches capped at 10 sigma fail from 25377 samples"), std::string::npos)
      << r.out;
  write_samples(path("s.csv"), false, 1048576, 16, 1 << 15, SamplerDefect::kNone);
  const auto s = cli("verify --hashes " + path("s.csv") + " --n 1048576 --sigma 16");
  EXPECT_EQ(s.exit_code, 0) << s.out;
}

TEST_F(VerifyCli, PlantedDefectsFail) {
  for (const auto defect : {SamplerDefect::kExponentialPitch, SamplerDefect::kZeroShift,
                            SamplerDefect::kRepeatedHashes, SamplerDefect::kPitchScale105}) {
    // A 5% scale error needs more samples than a wrong law (detectable_scale_error).
    const bool scale = defect == SamplerDefect::kPitchScale105;
    write_samples(path("d.csv"), !scale, 256, 4, scale ? 65536 : 16384, defect);
    const std::string kind = scale ? "--hashes " : "--blocks ";
    const auto r = cli("verify " + kind + path("d.csv") + " --n 256 --sigma 4");
    EXPECT_EQ(r.exit_code, 1) << sampler_defect_name(defect) << "\n" << r.out;
  }
}

// The consumer-side bug: right hashes, but the blocks a causal mask is built
// from start one position late (the first block one longer, the last one
// shorter). A user who exports the blocks their mask reads sees it fail; the
// same hashes' right blocks pass.
TEST_F(VerifyCli, BlocksOfAMaskBuiltOnePositionLateFail) {
  for (const bool shifted : {false, true}) {
    std::ofstream out(path("c.csv"));
    out << "sample,start,end\n";
    for (std::uint64_t k = 0; k < 8192; ++k) {
      auto st = block_starts(draw_hash(5, 0, k, 4.0), 256);
      if (shifted) {
        for (std::size_t b = 1; b + 1 < st.size(); ++b) ++st[b];
        st.erase(std::unique(st.begin(), st.end()), st.end());
      }
      for (std::size_t b = 0; b + 1 < st.size(); ++b)
        out << k << ',' << st[b] << ',' << st[b + 1] << '\n';
    }
    out.close();
    const auto r = cli("verify --blocks " + path("c.csv") + " --n 256 --sigma 4");
    EXPECT_EQ(r.exit_code, shifted ? 1 : 0) << r.out;
  }
}

// The sample count of docs/checks.md: 2^17 hashes detect a 2% scale error at sigma = 16
// with power >= 0.99 per anchor (a miss at this fixed seed has probability
// < 1e-2 even for one anchor), and the line says so.
TEST_F(VerifyCli, TwoPercentScaleErrorIsFoundWithTheStatedSampleCount) {
  write_samples(path("h.csv"), false, 4096, 16, 131072, SamplerDefect::kPitchScale102);
  const auto r = cli("verify --hashes " + path("h.csv") + " --n 4096 --sigma 16");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL  cobin-scale"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernel-scale error of 0.019"), std::string::npos) << r.out;
}

TEST_F(VerifyCli, MalformedFilesAreUnusable) {
  expect_file_refused("--blocks", 10, "sample,start,end\n0,0,5\n0,4,10\n",  // overlap
                      "should start at 5");
  expect_file_refused("--blocks", 10, "sample,start,end\n0,0,5\n0,6,10\n",  // gap
                      "should start at 5");
  expect_file_refused("--blocks", 10, "sample,start,end\n0,5,10\n0,0,5\n",  // unsorted
                      "should start at 0");
  expect_file_refused("--blocks", 10, "sample,start,end\n0,0,5\n0,5,8\n1,0,10\n",  // partial cover
                      "covers [0, 8)");
  expect_file_refused("--blocks", 10, "sample,start,end\n0,0,10\n1,0,10\n0,0,10\n", "increasing");
  expect_file_refused("--blocks", 10, "sample,start\n0,0\n", "header");
  expect_file_refused("--blocks", 10, "sample,start,end\n0,0,nan\n", "integer");
  std::ofstream(path("h.csv")) << "sample,pitch,shift\n0,-1,0\n";
  expect_usage_error("verify --hashes " + path("h.csv") + " --n 10 --sigma 2", "pitch");
  expect_usage_error("verify --hashes " + path("nope.csv") + " --n 10 --sigma 2", "not readable");
  expect_usage_error("verify --n 10 --sigma 2", "exactly one of");
  expect_usage_error("verify --blocks " + path("m.csv") + " --n 10 --sigma 0", "--sigma");
}

// Hashes of `trials` trials with a trial column: every trial's samples
// together, `per_trial` each.
void write_trial_hashes(const std::string& path, double sigma, std::int64_t trials,
                        std::int64_t per_trial, SamplerDefect defect) {
  std::ofstream out(path);
  out << "trial,sample,pitch,shift\n";
  for (std::int64_t r = 0; r < trials; ++r)
    for (std::int64_t k = 0; k < per_trial; ++k) {
      const auto h =
          draw_hash(5, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(k), sigma, defect);
      out << r << ',' << k << ',' << format_value(h.pitch) << ',' << format_value(h.shift)
          << '\n';
    }
}

// Trials are interleaved before batching: a sampler that ignores the trial
// index (every trial the same hashes) puts equal samples side by side and
// fails the dispersion tests; the sound sampler's trials pass (false alarm
// <= 1e-3 for this fixed seed).
TEST_F(VerifyCli, RepeatedTrialsFailWithATrialColumn) {
  write_trial_hashes(path("t.csv"), 8, 4, 4096, SamplerDefect::kNone);
  const auto sound = cli("verify --hashes " + path("t.csv") + " --n 4096 --sigma 8");
  EXPECT_EQ(sound.exit_code, 0) << sound.out;
  EXPECT_NE(sound.out.find("16384 samples of 4 trials, interleaved,"), std::string::npos)
      << sound.out;
  write_trial_hashes(path("r.csv"), 8, 4, 4096, SamplerDefect::kRepeatedTrials);
  const auto repeated = cli("verify --hashes " + path("r.csv") + " --n 4096 --sigma 8");
  EXPECT_EQ(repeated.exit_code, 1) << repeated.out;
  EXPECT_NE(repeated.out.find("FAIL  dispersion-lags[n=4096,sigma=8,start]"), std::string::npos)
      << repeated.out;
  EXPECT_NE(repeated.out.find("FAIL  cobin-dispersion[n=4096,sigma=8,middle]"), std::string::npos)
      << repeated.out;
  expect_file_refused("--hashes", 10, "trial,sample,pitch,shift\n0,0,1,0\n0,1,1,0\n1,0,1,0\n",
                      "same number");
  expect_file_refused("--hashes", 10, "trial,sample,pitch,shift\n1,0,1,0\n0,0,1,0\n",
                      "trials in increasing order");
  expect_file_refused("--hashes", 10, "trial,sample,pitch,shift\n-1,0,1,0\n", "trial");
  expect_file_refused("--hashes", 10, "trial,sample,pitch,shift\n0,1,1,0\n0,0,1,0\n", "increasing");
}

// Sparse rows at n = 2^32 (the blocks holding anchors 0, 2^24 + 1, 2^31 + 1 and
// n - 1 only): a binning done right, and one that rounds positions to float32
// first (exact below 2^24, a grid of 2 above it and of 256 past 2^31).
void write_sparse(const std::string& path, std::int64_t n, double sigma, std::int64_t count,
                  bool float32) {
  const std::vector<std::int64_t> anchors = {0, (std::int64_t{1} << 24) + 1,
                                             (std::int64_t{1} << 31) + 1, n - 1};
  std::ofstream out(path);
  out << "trial,sample,anchor,start,end\n";
  for (std::int64_t k = 0; k < count; ++k) {
    const PositionalHash h = draw_hash(6, 0, static_cast<std::uint64_t>(k), sigma);
    const auto bin32 = [&](std::int64_t i) {
      return std::floor((static_cast<double>(static_cast<float>(i)) - h.shift) / h.pitch);
    };
    for (const std::int64_t a : anchors) {
      std::int64_t start = block_begin(h, a), end = block_end(h, a, n);
      if (float32) {
        for (start = a; start > 0 && bin32(start - 1) == bin32(a);) --start;
        for (end = a + 1; end < n && bin32(end) == bin32(a);) ++end;
      }
      out << "0," << k << ',' << a << ',' << start << ',' << end << '\n';
    }
  }
}

// False alarm of the sound run: <= 1e-3 for this fixed seed.
TEST_F(VerifyCli, SparseInputAtTwoToThe32PassesAndFloat32RoundingFails) {
  const std::int64_t n = std::int64_t{1} << 32;
  write_sparse(path("s.csv"), n, 4, 8192, false);
  const std::string args = " --n 4294967296 --sigma 4";
  const auto sound = cli("verify --sparse " + path("s.csv") + args);
  EXPECT_EQ(sound.exit_code, 0) << sound.out << sound.err;
  EXPECT_NE(sound.out.find("PASS  cobin-mean[n=4294967296,sigma=4,at-2147483649]: 8192 hashes"),
            std::string::npos)
      << sound.out;
  EXPECT_NE(sound.out.find("PASS  dispersion-lags[n=4294967296,sigma=4,at-4294967295]: 8192 "
                           "samples"),
            std::string::npos)
      << sound.out;
  write_sparse(path("f.csv"), n, 4, 8192, true);
  const auto rounded = cli("verify --sparse " + path("f.csv") + args);
  EXPECT_EQ(rounded.exit_code, 1) << rounded.out;
  EXPECT_NE(rounded.out.find("FAIL  cobin-mean[n=4294967296,sigma=4,at-16777217]"),
            std::string::npos)
      << rounded.out;
  EXPECT_NE(rounded.out.find("PASS  cobin-mean[n=4294967296,sigma=4,at-0]"), std::string::npos)
      << rounded.out;  // below 2^24 float32 holds every position
  expect_file_refused("--sparse", 100, "sample,anchor,start,end\n0,0,0,5\n", "header");
  expect_file_refused("--sparse", 100, "trial,sample,anchor,start,end\n0,0,3,4,9\n",
                      "must hold anchor");
  expect_file_refused("--sparse", 100, "trial,sample,anchor,start,end\n0,0,3,0,101\n",
                      "must hold anchor");
  expect_file_refused("--sparse", 100,
                      "trial,sample,anchor,start,end\n0,0,3,0,9\n0,0,50,40,60\n0,1,3,0,9\n",
                      "lists 1");
  expect_file_refused("--sparse", 100, "trial,sample,anchor,start,end\n0,0,3,0,9\n0,1,4,0,9\n",
                      "out of place");
  expect_file_refused("--sparse", 100, "trial,sample,anchor,start,end\n0,1,3,0,9\n0,0,3,0,9\n",
                      "sorted");
  expect_file_refused("--sparse", 100, "trial,sample,anchor,start,end\n0,0,3,0,x\n",
                      "not a number");
  expect_usage_error("verify --sparse " + path("m.csv") + " --n 9007199254740993 --sigma 2", "--n");
}

// --sparse takes n up to 2^53; its co-binning lines were once read back from
// an internal table that refused n above 2^50 (exit 2 naming a column the
// user never wrote). The checks now take the counts in memory.
TEST_F(VerifyCli, SparseInputBeyondTwoToThe50IsChecked) {
  write_sparse(path("s.csv"), std::int64_t{1} << 52, 4, 8192, false);
  const auto r = cli("verify --sparse " + path("s.csv") + " --n 4503599627370496 --sigma 4");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS  cobin-mean[n=4503599627370496,sigma=4,at-4503599627370495]"),
            std::string::npos)
      << r.out;
}

// The samples the CLI reads from a table and the ones the Python module makes
// from arrays (verification.h) are the same, field for field.
TEST(Verify, SamplesFromArraysEqualSamplesFromTables) {
  const std::int64_t n = 300;
  std::string hashes = "trial,sample,pitch,shift\n", blocks = "trial,sample,start,end\n";
  std::vector<double> pitch, shift;
  std::vector<std::vector<std::int64_t>> starts;
  std::vector<std::int64_t> trial;
  for (std::int64_t k = 0; k < 64; ++k) {
    PositionalHash h = draw_hash(2, 0, static_cast<std::uint64_t>(k), k < 32 ? 6.0 : 400.0);
    starts.push_back(block_starts(h, n));
    h.shift += static_cast<double>(k % 5 - 2) * h.pitch;  // any shift: only shift mod pitch counts
    pitch.push_back(h.pitch);
    shift.push_back(h.shift);
    trial.push_back(k / 16);
    hashes += fmt::format("{},{},{},{}\n", k / 16, k, format_value(h.pitch), format_value(h.shift));
    for (std::size_t b = 0; b + 1 < starts.back().size(); ++b)
      blocks += fmt::format("{},{},{},{}\n", k / 16, k, starts.back()[b], starts.back()[b + 1]);
  }
  const auto same = [](const std::vector<VerifySample>& a, const std::vector<VerifySample>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].b_max, b[i].b_max) << i;
      EXPECT_EQ(a[i].runs, b[i].runs) << i;
      EXPECT_EQ(a[i].pitch_lo, b[i].pitch_lo) << i;
      EXPECT_EQ(a[i].pitch_hi, b[i].pitch_hi) << i;
      EXPECT_EQ(a[i].trial, b[i].trial) << i;
    }
  };
  same(samples_of_hashes(pitch, shift, trial, n),
       samples_from_hashes(CsvTable::parse(hashes, "h"), n));
  same(samples_of_partitions(starts, trial, n),
       samples_from_blocks(CsvTable::parse(blocks, "b"), n));
  EXPECT_EQ(samples_of_hashes(pitch, shift, trial, n)[1].trial, 1);  // interleaved by trial
  trial[20] = 0;
  EXPECT_THROW(samples_of_hashes(pitch, shift, trial, n), ArgumentError);
}

TEST(Verify, TooFewSamplesForOneBatchIsUnusable) {
  std::vector<VerifySample> samples(3);
  VerifyOptions o;
  o.n = 64;
  o.sigma = 2;
  EXPECT_THROW(verify_samples(samples, o), std::invalid_argument);
}

}  // namespace
}  // namespace poslsh
