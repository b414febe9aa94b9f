// `poslsh check` on blocksize tables built by blocksize_cell_rows from the
// sound sampler and from planted sampler defects (sampler_defect.h), and on
// tables whose b_max grows by the wrong law across n. Every table has a fixed
// seed, so each verdict is deterministic; the false-alarm probability quoted
// for a sound table is the chance that a fresh seed would fail it.
#include <gtest/gtest.h>
#include <poslsh/block_size_law.h>
#include <poslsh/bounds.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "error_kinds.h"
#include "experiments/blocksize/blocksize.h"
#include "experiments/defects/sampler_defect.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"

namespace poslsh {
namespace {

using Rows = std::vector<std::vector<std::string>>;

constexpr std::uint64_t kSeed = 2024;
const std::vector<std::int64_t> kN = {std::int64_t{1} << 16, std::int64_t{1} << 20,
                                      std::int64_t{1} << 25, std::int64_t{1} << 30};
const std::vector<SampleCount> kCounts = {{8, 0}, {64, 0}, {0, 2}};

Rows make_rows(const HashDrawer& draw, std::int64_t trials = 1000,
               const std::vector<std::int64_t>& ns = kN, double sigma = 4) {
  Rows rows;
  for (const auto n : ns) {
    auto part = blocksize_cell_rows(n, sigma, kCounts, trials, draw, 0.01);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

CsvTable as_table(const Rows& rows, std::vector<std::string> columns = blocksize_columns()) {
  std::string text = csv_line(columns);
  for (const auto& r : rows) text += csv_line(r);
  return CsvTable::parse(text);
}

int count(const std::vector<CheckOutcome>& outcomes, const std::string& prefix, Verdict v) {
  int c = 0;
  for (const auto& o : outcomes)
    if (o.check.rfind(prefix, 0) == 0 && o.verdict == v) ++c;
  return c;
}

std::string dump(const std::vector<CheckOutcome>& outcomes) {
  std::string text;
  for (const auto& o : outcomes)
    text += std::string(verdict_name(o.verdict)) + " " + o.check + ": " + o.detail + "\n";
  return text;
}

const std::size_t kCol_n = 0, kCol_s = 2, kCol_c = 3, kCol_b = 6, kCol_bound = 7;

TEST(BlocksizeDrawer, SeedOverloadIsTheSoundDrawer) {
  for (const auto n : {std::int64_t{5}, std::int64_t{3000}, std::int64_t{1} << 30}) {
    const Rows by_seed = blocksize_cell_rows(n, 2.5, kCounts, 30, kSeed, 0.01);
    EXPECT_EQ(by_seed, blocksize_cell_rows(n, 2.5, kCounts, 30, hash_drawer(kSeed), 0.01));
    EXPECT_EQ(by_seed, blocksize_cell_rows(n, 2.5, kCounts, 30,
                                           hash_drawer(kSeed, SamplerDefect::kNone), 0.01));
    // A drawer that is not draw_hash is really used.
    const HashDrawer doubled = [](std::uint64_t t, std::uint64_t k, double sigma) {
      return draw_hash(kSeed, t, k, 2 * sigma);
    };
    const Rows wide = blocksize_cell_rows(n, 2.5, kCounts, 30, doubled, 0.01);
    const Rows direct = blocksize_cell_rows(n, 5.0, kCounts, 30, kSeed, 0.01);
    ASSERT_EQ(wide.size(), direct.size());
    for (std::size_t r = 0; r < wide.size(); ++r) EXPECT_EQ(wide[r][kCol_b], direct[r][kCol_b]);
  }
}

// Sound sampler: every check passes. At alpha = 1e-3 (the default) a fresh
// seed fails this table with probability <= 1e-3.
TEST(BlocksizeChecks, SoundSamplerPassesEveryCheck) {
  const auto outcomes = check_blocksize_table(as_table(make_rows(hash_drawer(kSeed))));
  EXPECT_EQ(count(outcomes, "", Verdict::kFail), 0) << dump(outcomes);
  EXPECT_EQ(count(outcomes, "bound", Verdict::kPass), 1);
  EXPECT_EQ(count(outcomes, "law[", Verdict::kPass), 12) << dump(outcomes);
  EXPECT_EQ(count(outcomes, "growth[sigma=4,c=2]", Verdict::kPass), 1) << dump(outcomes);
  EXPECT_EQ(count(outcomes, "growth-fit[sigma=4,c=2]", Verdict::kInfo), 1) << dump(outcomes);
  for (const auto& o : outcomes) {
    if (o.check == "growth[sigma=4,c=2]") {
      EXPECT_NE(o.detail.find("all 4 n"), std::string::npos) << o.detail;
      EXPECT_NE(o.detail.find("family-wise false alarm <= 0.000333 = alpha 0.001 / 3"),
                std::string::npos)
          << o.detail;
    }
  }
}

// The level in the output follows the alpha handed in.
TEST(BlocksizeChecks, StatesTheAlphaItSpends) {
  const auto outcomes = check_blocksize_table(as_table(make_rows(hash_drawer(kSeed), 200)), 3e-4);
  for (const auto& o : outcomes) {
    if (o.check == "bound" || o.check.rfind("growth[", 0) == 0) {
      EXPECT_NE(o.detail.find("<= 0.0001 = alpha 0.0003 / 3 check families"), std::string::npos)
          << o.check << ": " << o.detail;
    }
  }
  // alpha is poslsh's (kCheckFamilyAlpha over the files checked), never the user's.
  testing::expect_broken_invariant(
      [] { check_blocksize_table(as_table(make_rows(hash_drawer(kSeed), 10)), 0); });
}

// A 5% pitch scale shifts E[b_max] by ~1 = 0.2 sd per trial: over 1000 trials
// the mean test sees z ~ 6 at every n.
TEST(BlocksizeChecks, PitchScale105FailsLawAndGrowth) {
  const auto outcomes =
      check_blocksize_table(as_table(make_rows(hash_drawer(kSeed, SamplerDefect::kPitchScale105))));
  EXPECT_EQ(count(outcomes, "growth[sigma=4,c=2]", Verdict::kFail), 1) << dump(outcomes);
  EXPECT_GE(count(outcomes, "law[", Verdict::kFail), 1) << dump(outcomes);
}

// Exponential pitch of the right mean: the max of s pitches is far larger,
// and its tail exceeds the bound.
TEST(BlocksizeChecks, ExponentialPitchFailsEveryCheck) {
  const auto outcomes = check_blocksize_table(
      as_table(make_rows(hash_drawer(kSeed, SamplerDefect::kExponentialPitch), 300)));
  EXPECT_EQ(count(outcomes, "bound", Verdict::kFail),
            1 + count(outcomes, "bound[", Verdict::kFail));
  EXPECT_GE(count(outcomes, "bound[", Verdict::kFail), 1);
  EXPECT_EQ(count(outcomes, "law[", Verdict::kFail), 12) << dump(outcomes);
  EXPECT_EQ(count(outcomes, "growth[sigma=4,c=2]", Verdict::kFail), 1) << dump(outcomes);
}

// Sound rows of the s = ceil(2 ln n) cells with b_max replaced by f(n, b, row
// index within the n); the bound column stays the (correct) recomputable one.
Rows regrow(const Rows& sound,
            const std::function<std::int64_t(std::int64_t n, std::int64_t b, std::size_t i)>& f) {
  Rows rows;
  std::map<std::int64_t, std::size_t> seen;
  for (const auto& r : sound) {
    if (r[kCol_c].empty()) continue;
    const auto n = std::stoll(r[kCol_n]);
    auto row = r;
    const std::int64_t b = f(n, std::stoll(r[kCol_b]), seen[n]++);
    row[kCol_b] = std::to_string(std::clamp<std::int64_t>(b, 1, n));
    rows.push_back(row);
  }
  return rows;
}

double lnln(std::int64_t n) { return std::log(std::log(static_cast<double>(n))); }

// The sound table passes; b_max growing like sigma ln n, sigma sqrt(ln n) or
// not at all fails the growth check.
TEST(BlocksizeChecks, GrowthTellsTheLawFromOtherGrowths) {
  const Rows sound = make_rows(hash_drawer(kSeed));
  auto outcomes = check_blocksize_table(
      as_table(regrow(sound, [](std::int64_t, std::int64_t b, std::size_t) { return b; })));
  EXPECT_EQ(count(outcomes, "growth[sigma=4,c=2]", Verdict::kPass), 1) << dump(outcomes);

  const std::int64_t n0 = kN.front();
  // sigma ln n: b_max x ln n / ln ln n (x 3.6 at 2^10, x 6.8 at 2^30).
  const auto ln_n = [](std::int64_t n, std::int64_t b, std::size_t) {
    return std::llround(static_cast<double>(b) * std::log(static_cast<double>(n)) / lnln(n));
  };
  // sigma sqrt(ln n), anchored to the law at n0: x sqrt(ln n / ln n0) ln ln n0 / ln ln n
  // (x 1 at n0, x 1.085 at 2^30).
  const auto sqrt_ln_n = [n0](std::int64_t n, std::int64_t b, std::size_t) {
    return std::llround(
        static_cast<double>(b) *
        std::sqrt(std::log(static_cast<double>(n)) / std::log(static_cast<double>(n0))) * lnln(n0) /
        lnln(n));
  };
  // Constant: every n repeats the b_max of n0 (same trial).
  std::vector<std::int64_t> at_n0;
  for (const auto& r : sound)
    if (!r[kCol_c].empty() && std::stoll(r[kCol_n]) == n0) at_n0.push_back(std::stoll(r[kCol_b]));
  const auto constant = [&at_n0](std::int64_t, std::int64_t, std::size_t i) { return at_n0[i]; };
  for (const auto& [name, f] :
       std::vector<std::pair<std::string,
                             std::function<std::int64_t(std::int64_t, std::int64_t, std::size_t)>>>{
           {"ln n", ln_n}, {"sqrt(ln n)", sqrt_ln_n}, {"constant", constant}}) {
    outcomes = check_blocksize_table(as_table(regrow(sound, f)));
    EXPECT_EQ(count(outcomes, "growth[sigma=4,c=2]", Verdict::kFail), 1) << name << "\n"
                                                                         << dump(outcomes);
  }
}

// Where n is too small for F(b)^s at this trial count, growth says n/a.
TEST(BlocksizeChecks, GrowthIsNotApplicableWhereTheLawIsNot) {
  const auto outcomes = check_blocksize_table(
      as_table(make_rows(hash_drawer(kSeed), 200, {1024, 4096, std::int64_t{1} << 30}, 64)));
  EXPECT_EQ(count(outcomes, "growth[sigma=64,c=2]", Verdict::kNotApplicable), 1) << dump(outcomes);
  EXPECT_EQ(count(outcomes, "", Verdict::kFail), 0) << dump(outcomes);
}

std::string thrown(const CsvTable& t) {
  try {
    check_blocksize_table(t);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    return what;
  }
  ADD_FAILURE() << "no std::invalid_argument";
  return "";
}

TEST(BlocksizeChecks, UnusableTablesThrowNamingRowAndColumn) {
  const Rows sound = make_rows(hash_drawer(kSeed), 20, {1 << 20});
  const auto edited = [&](std::size_t row, std::size_t col, const std::string& value) {
    Rows rows = sound;
    rows[row][col] = value;
    return as_table(rows);
  };
  EXPECT_NO_THROW(check_blocksize_table(as_table(sound)));
  // Rows are named by their line in the file (header = line 1), as by every checker.
  // The bound column edited upwards would turn FAIL into PASS.
  EXPECT_NE(thrown(edited(3, kCol_bound, "1000"))
                .find("row 5: b_max_bound 1000 disagrees with its recomputation " +
                      sound[3][kCol_bound] + " from (n, sigma, s, p)"),
            std::string::npos);
  for (const std::string bad : {"nan", "inf", "-3", "0", "2.5", "", "2000000"}) {
    EXPECT_NE(thrown(edited(5, kCol_b, bad)).find("row 7, column b_max: expected an integer"),
              std::string::npos)
        << "'" << bad << "'";
  }
  EXPECT_NE(thrown(edited(5, kCol_bound, "nan")).find("row 7, column b_max_bound"),
            std::string::npos);
  // s = ceil(2 ln 2^20) = 28; 27 is not it.
  {
    Rows rows = sound;
    for (auto& r : rows)
      if (!r[kCol_c].empty()) r[kCol_s] = "27";
    EXPECT_NE(thrown(as_table(rows)).find("column s: s = 27 but s_log_c = 2 needs"),
              std::string::npos);
  }
  EXPECT_NE(thrown(edited(7, 8, "0.02")).find("row 9, column p"), std::string::npos);
  EXPECT_NE(thrown(edited(7, 4, "6")).find("row 9, column trial: trial 6 repeats"),
            std::string::npos);
  EXPECT_NE(thrown(edited(7, 5, "nan")).find("row 9, column max_pitch"), std::string::npos);
  // A repeated column name: which one would a reader take?
  {
    Rows rows = sound;
    for (auto& r : rows) r.push_back("1");
    auto columns = blocksize_columns();
    columns.push_back("b_max");
    // Rejected by the CSV reader itself, before any checker sees it.
    try {
      as_table(rows, columns);
      ADD_FAILURE() << "a repeated column was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("column 'b_max' appears twice"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace poslsh
