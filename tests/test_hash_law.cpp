// `poslsh hash-law`: its probabilities against closed-form and quadrature
// oracles, the sound sampler passing every line at two fixed seeds, and each
// defect class the other tables are blind to (one hash index other than 0,
// a truncated trial index, a repeat at lag 4096, a 5% pitch error at odd
// powers of two and at fractional sigma, a pitch law capped at 14 sigma)
// failing the line kind meant for it (new: a repeat at lag 500, a trial and
// index packed into one key, a 5% pitch error at 64 < sigma < 256, a pitch
// clamped at 14 sigma); lines that cannot fail at a size say n/a. Each
// verdict is deterministic (fixed seeds); a sound table fails a fresh seed
// with probability <= 1e-3 (the family-wise level of every check here; the
// duplicates line's part of it is below 3e-15, the equivariance line's 0).
#include <gtest/gtest.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/pitch_law.h>

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "experiments/oracles/control_sampler.h"
#include "experiments/hash_law/hash_law.h"
#include "experiments/defects/planted_defect.h"
#include "runner/cli_errors.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"

namespace poslsh {
namespace hash_law_test {

using Rows = std::vector<std::vector<std::string>>;

CsvTable as_table(const Rows& rows) {
  std::string text = csv_line(hash_law_columns());
  for (const auto& r : rows) text += csv_line(r);
  return CsvTable::parse(text);
}

Rows law_rows(const std::string& defect, std::uint64_t seed, const std::vector<double>& sigmas,
              HashLawSizes sizes = {}) {
  const PlantedDefect planted = parse_planted_defect(defect);
  const HashDrawer draw = hash_drawer(seed, planted);
  const HashReaders readers = hash_readers(seed, planted);
  Rows rows;
  for (std::size_t c = 0; c < sigmas.size(); ++c) {
    auto part = hash_law_cell_rows(sigmas[c], static_cast<std::int64_t>(c), sizes, draw, readers);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

std::string dump(const std::vector<CheckOutcome>& outcomes) {
  std::string text;
  for (const auto& o : outcomes)
    text += std::string(verdict_name(o.verdict)) + " " + o.check + ": " + o.detail + "\n";
  return text;
}

// The failing lines' names, in output order.
std::vector<std::string> failed(const std::vector<CheckOutcome>& outcomes) {
  std::vector<std::string> names;
  for (const auto& o : outcomes)
    if (o.verdict == Verdict::kFail) names.push_back(o.check);
  return names;
}

const std::vector<double> kSigmaKinds = {1, 2, 2.5198421};

TEST(HashLaw, ExpectedCountsAreTheExactLawOfEachStatistic) {
  const Rows rows = law_rows("sound", 1, {4}, {8, 16});
  const CsvTable t = as_table(rows);
  int checked = 0;
  for (std::size_t r = 0; r < t.size(); ++r) {
    const std::string stat = t.text(r, "statistic");
    const double hashes = t.number(r, "hashes"), expected = t.number(r, "expected");
    double p = -1;
    // Oracles independent of PitchLaw: the regularised incomplete gamma
    // function for Gamma(2, 1), the uniform law for the shift fraction.
    if (stat.rfind("pitch<", 0) == 0) p = boost::math::gamma_p(2.0, std::stod(stat.substr(6)));
    if (stat.rfind("pitch>=", 0) == 0) p = boost::math::gamma_q(2.0, std::stod(stat.substr(7)));
    if (stat.rfind("shift<", 0) == 0) p = std::stod(stat.substr(6));
    if (stat == "equal" || stat == "unequal") p = 0;
    ASSERT_GE(p, 0) << stat;
    EXPECT_NEAR(expected, hashes * p, 1e-12 * std::max(1.0, hashes * p)) << stat;
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(t.size()));
  // 8 indices x 7 bulk rows, the grid's 7 + 6, the duplicate row, 2 x (64 span
  // rows + 7 far rows), the equivariance rows (the cell's sigma and the
  // ladder's 25 octaves from 2^-8), the batched drawer's two rows and the
  // blocks probe's two.
  EXPECT_EQ(checked, 8 * 7 + 13 + 1 + 2 * 71 + 26 + 2 + 2);
}

TEST(HashLaw, SoundSamplerPassesEveryLineAtTwoSeeds) {
  for (const std::uint64_t seed : {4, 5}) {
    const auto out = check_hash_law_table(as_table(law_rows("sound", seed, kSigmaKinds)));
    EXPECT_EQ(out.size(), 9u) << dump(out);  // one line per kind, pooled over sigma
    EXPECT_TRUE(failed(out).empty()) << dump(out);
    for (const auto& o : out) EXPECT_EQ(o.verdict, Verdict::kPass) << dump(out);
  }
}

// Each defect fails the line kind built for it, at every sigma it touches,
// in both seeds of the default reproduction's power section.
struct Planted {
  std::string defect;
  std::vector<std::string> must_fail;
};

class HashLawDefects : public ::testing::TestWithParam<Planted> {};

TEST_P(HashLawDefects, FailTheirLine) {
  for (const std::uint64_t seed : {1000, 1001}) {
    const auto out = check_hash_law_table(as_table(law_rows(GetParam().defect, seed, kSigmaKinds)));
    const auto names = failed(out);
    for (const auto& line : GetParam().must_fail)
      EXPECT_NE(std::find(names.begin(), names.end(), line), names.end())
          << GetParam().defect << " seed " << seed << " should fail " << line << "\n"
          << dump(out);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Classes, HashLawDefects,
    ::testing::Values(Planted{"hash-1-zero-shift", {"hash-index"}},
                      Planted{"hash-300-exponential-pitch", {"hash-index"}},
                      Planted{"trial-low-32-bits", {"trial-span"}},
                      Planted{"repeat-lag-4096", {"index-span"}},
                      Planted{"pitch-x1.05-sigma-odd-pow2", {"equivariance"}},
                      Planted{"pitch-x1.05-fractional-sigma", {"equivariance"}},
                      Planted{"gamma3-pitch-sigma-ge-32", {"equivariance"}},
                      Planted{"gamma3-pitch-sigma-lt-2", {"equivariance"}},
                      Planted{"pitch-cap-14sigma", {"pitch-tail"}},
                      Planted{"pitch-clamp-14sigma", {"pitch-tail"}},
                      Planted{"pitch-x1.05-sigma-64-256", {"equivariance"}},
                      Planted{"packed-key-513", {"duplicates"}},
                      Planted{"repeat-lag-500", {"duplicates"}},
                      Planted{"batched-shared-shift", {"batched-drawer"}},
                      Planted{"one-based-bins", {"blocks"}}),
    [](const auto& info) {
      std::string name = info.param.defect;
      for (auto& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

const CheckOutcome& line(const std::vector<CheckOutcome>& out, const std::string& name) {
  for (const auto& o : out)
    if (o.check == name) return o;
  throw std::runtime_error("no line " + name);
}

// A defect in the batched drawer alone is invisible to every law line (they
// read the scalar drawer) and seen by the batched line alone; a defect in the
// scalar sampler moves both drawers, so the batched line passes and the law
// lines are the ones that see it.
TEST(HashLaw, BatchedDrawerDefectIsSeenOnlyByTheBatchedLine) {
  const auto out = check_hash_law_table(as_table(law_rows("batched-shared-shift", 7, {2})));
  EXPECT_EQ(failed(out), std::vector<std::string>{"batched-drawer"}) << dump(out);
  // The same for a binning shift that keeps the law: the blocks line alone.
  const auto shifted = check_hash_law_table(as_table(law_rows("one-based-bins", 7, {2})));
  EXPECT_EQ(failed(shifted), std::vector<std::string>{"blocks"}) << dump(shifted);
  EXPECT_NE(line(out, "batched-drawer").detail.find("unequal"), std::string::npos);
  const auto scalar = check_hash_law_table(as_table(law_rows("shared-shift", 7, {2})));
  EXPECT_EQ(line(scalar, "batched-drawer").verdict, Verdict::kPass) << dump(scalar);
  // One unequal largest block (the probe's key 1: the library's b_max against
  // the definition's widest block) fails the blocks line alone.
  Rows edited = law_rows("sound", 7, {2});
  for (auto& row : edited)
    if (row[1] == "blocks" && row[2] == "1") row[5] = "1";
  const auto b_max = check_hash_law_table(as_table(edited));
  EXPECT_EQ(failed(b_max), std::vector<std::string>{"blocks"}) << dump(b_max);
  // Without a batched drawer the table has no batched rows and no such line.
  Rows plain = hash_law_cell_rows(2, 0, {}, hash_drawer(7, PlantedDefect{}));
  EXPECT_EQ(check_hash_law_table(as_table(plain)).size(), 7u);
}

// A defect confined to a sigma range is seen at a ladder sigma even when no
// cell of the table has one, and the equivariance line says which octave.
TEST(HashLaw, SigmaConfinedDefectsAreSeenOffTheTablesSigmas) {
  const HashLawSizes small{16, 64};
  const auto mid = check_hash_law_table(
      as_table(law_rows("pitch-x1.05-sigma-64-256", 1000, {1, 2}, small)));
  EXPECT_EQ(line(mid, "equivariance").verdict, Verdict::kFail) << dump(mid);
  EXPECT_NE(line(mid, "equivariance").detail.find("[2^6, 2^7)"), std::string::npos) << dump(mid);
  const auto odd = check_hash_law_table(
      as_table(law_rows("pitch-x1.05-sigma-odd-pow2", 1000, {1, 4}, small)));
  // 2^-7, an odd power of two of the ladder's lowest octave, is the first hit.
  EXPECT_EQ(line(odd, "equivariance").verdict, Verdict::kFail) << dump(odd);
  EXPECT_NE(line(odd, "equivariance").detail.find("[2^-7, 2^-6)"), std::string::npos)
      << dump(odd);
  // The table's own sigma is key 0, named as such.
  const auto own = check_hash_law_table(
      as_table(law_rows("pitch-x1.05-fractional-sigma", 1000, {1.5874011}, small)));
  EXPECT_NE(line(own, "equivariance").detail.find("(the row's sigma)"), std::string::npos)
      << dump(own);
  const auto sound = check_hash_law_table(as_table(law_rows("sound", 1000, {1, 2}, small)));
  EXPECT_EQ(line(sound, "equivariance").verdict, Verdict::kPass) << dump(sound);
}

// The ladder has every head of Press et al.'s up to 64 heads, both forms of
// their slopes, and a point in every quarter octave from 2^-8 to 2^16.
TEST(HashLaw, EquivarianceLadderHasEveryAlibiHead) {
  const auto& ladder = equivariance_ladder();
  EXPECT_TRUE(std::is_sorted(ladder.begin(), ladder.end()));
  const auto has = [&](double s) { return std::binary_search(ladder.begin(), ladder.end(), s); };
  for (int heads = 1; heads <= 64; ++heads) {
    for (int h = 1; h <= heads; ++h)
      EXPECT_TRUE(has(std::exp2(8.0 * h / heads))) << h << "/" << heads;
    for (const double s : alibi_head_sigmas(heads)) EXPECT_TRUE(has(s)) << s;
  }
  EXPECT_TRUE(has(128));
  for (int j = -32; j < 64; ++j) {
    const auto it = std::lower_bound(ladder.begin(), ladder.end(), std::exp2(j / 4.0));
    ASSERT_NE(it, ladder.end());
    EXPECT_LE(*it, std::exp2((j + 1) / 4.0)) << j;
  }
}

// The duplicate search's false alarm on a sound sampler: at most pairs x
// 2^-96, below 3e-15 for the default reproduction's 8 x (2^21 + 2^17)
// hashes; a single equal pair fails the line.
TEST(HashLaw, DuplicateSearchFalseAlarmIsStatedAndOnePairFails) {
  const double n = 8.0 * (512 * 4096 + 2 * kDeepIndices);
  EXPECT_LT(n * (n - 1) / 2 * kEqualPairBound, 3e-15);
  Rows rows = law_rows("sound", 4, {2}, {64, 64});
  std::size_t dup = 0;
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (rows[r][1] == "duplicate") dup = r;
  ASSERT_EQ(rows[dup][5], "0");
  EXPECT_EQ(std::stoll(rows[dup][4]), 64 * 64 + 2 * kDeepIndices);
  rows[dup][5] = "1";
  EXPECT_EQ(line(check_hash_law_table(as_table(rows)), "duplicates").verdict, Verdict::kFail);
}

// Where no count of any row could reach the line's level (6 trials per index:
// 2 x 0.09^6 = 1.1e-6 at best, the level about 4e-8), the line says n/a, not
// PASS, and cannot fail; with 64 trials it decides again.
TEST(HashLaw, LinesThatCannotFailSayNotApplicable) {
  const auto few = check_hash_law_table(as_table(law_rows("sound", 1, {2}, {512, 6})));
  EXPECT_EQ(line(few, "hash-index").verdict, Verdict::kNotApplicable) << dump(few);
  const auto bad =
      check_hash_law_table(as_table(law_rows("hash-1-zero-shift", 1, {2}, {512, 6})));
  EXPECT_EQ(line(bad, "hash-index").verdict, Verdict::kNotApplicable) << dump(bad);
  EXPECT_EQ(line(few, "duplicates").verdict, Verdict::kPass) << dump(few);
  EXPECT_EQ(line(few, "equivariance").verdict, Verdict::kPass) << dump(few);
  const auto more = check_hash_law_table(as_table(law_rows("sound", 1, {2}, {512, 64})));
  EXPECT_EQ(line(more, "hash-index").verdict, Verdict::kPass) << dump(more);
}

// The sigma range: pitches and shifts stay normal doubles; outside it every
// line would fail a sound sampler, so the option refuses it in one line.
TEST(HashLaw, SigmaOutsideTheRangeIsRefusedNamingTheOption) {
  for (const double bad : {5e-324, 1e-300, 1e308, 1e251}) {
    try {
      require_hash_law_sigma("--sigma", {2, bad});
      ADD_FAILURE() << bad << " accepted";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--sigma must be a number in [1e-250, 1e+250]"), std::string::npos)
          << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);
    }
  }
  EXPECT_NO_THROW(
      require_hash_law_sigma("--sigma", {kHashLawSigmaMin, 1, 256, kHashLawSigmaMax}));
}

TEST(HashLaw, UnusableTablesAreRejectedNamingTheRow) {
  const Rows good = law_rows("sound", 1, {4}, {2, 8});
  const auto broken = [&](std::size_t column, const std::string& value) {
    Rows rows = good;
    rows[3][column] = value;
    return as_table(rows);
  };
  EXPECT_THROW(check_hash_law_table(broken(1, "corner")), InputError);         // probe
  EXPECT_THROW(check_hash_law_table(broken(3, "pitch<3")), InputError);        // statistic
  EXPECT_THROW(check_hash_law_table(broken(6, "1.5")), InputError);            // expected
  EXPECT_THROW(check_hash_law_table(broken(5, "17")), InputError);             // count > hashes
  EXPECT_THROW(check_hash_law_table(broken(0, "nan")), InputError);            // sigma
  EXPECT_THROW(check_hash_law_table(broken(0, "1e300")), InputError);          // sigma range
  EXPECT_THROW(check_hash_law_table(broken(3, "equal")), InputError);          // not a span row
  EXPECT_THROW(check_hash_law_table(broken(3, "unequal")), InputError);  // not equivariance
  Rows span = good;
  for (auto& r : span)
    if (r[1] == "span") r[2] = "64";
  EXPECT_THROW(check_hash_law_table(as_table(span)), InputError);
  EXPECT_EQ(check_hash_law_table(as_table({})).front().verdict, Verdict::kFail);
}

TEST(HashLaw, SpanBasesSpreadOverTheTrialRange) {
  EXPECT_EQ(span_base(0), 0u);
  int high = 0;
  for (std::int64_t i = 1; i < kSpanBases; ++i) high += span_base(i) >= (std::uint64_t{1} << 63);
  EXPECT_GT(high, 2);  // some bases have the top bit set, so t + 2^63 wraps
  EXPECT_LT(high, kSpanBases - 2);
}

// The control sampler (control_sampler.h), on which the error-law lines'
// exactness rests, has the law at every index below 512 too: its hashes of a
// trial come from one generator, so they are drawn a trial at a time.
HashDrawer control_drawer(std::uint64_t seed, std::uint64_t bad_index = ~std::uint64_t{0}) {
  auto cache = std::make_shared<std::pair<std::uint64_t, std::vector<PositionalHash>>>();
  return [=](std::uint64_t trial, std::uint64_t k, double sigma) {
    if (cache->second.empty() || cache->first != trial)
      *cache = {trial, control_hashes(seed, trial, 512, sigma)};
    PositionalHash h = cache->second.at(k);
    if (k == bad_index) h = {h.pitch * 1.3, h.shift * 1.3};
    return h;
  };
}

TEST(HashLaw, ControlSamplerHasTheLawAtEveryIndex) {
  const auto rows = [](const HashDrawer& draw) {
    Rows all;
    for (const auto& [sigma, cell] : {std::pair{1.0, 0}, std::pair{2.5198421, 1}}) {
      auto part = hash_law_index_rows(sigma, cell, {512, 2048}, draw);
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  };
  const auto sound = check_hash_law_table(as_table(rows(control_drawer(9))));
  EXPECT_EQ(sound.size(), 3u) << dump(sound);  // hash-index, hash-bulk, pitch-tail
  EXPECT_TRUE(failed(sound).empty()) << dump(sound);
  // Negative control: index 77 of the control drawn 30% too long.
  const auto bad = failed(check_hash_law_table(as_table(rows(control_drawer(9, 77)))));
  EXPECT_NE(std::find(bad.begin(), bad.end(), "hash-index"), bad.end());
}

}  // namespace hash_law_test
}  // namespace poslsh
