// `poslsh blocksize` end to end, and `poslsh check` on blocksize tables with
// negative controls (tables made by deliberately wrong samplers).
#include <gtest/gtest.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/block_size.h>
#include <poslsh/block_size_law.h>
#include <poslsh/positional_hash.h>
#include <poslsh/rng.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "cli_harness.h"
#include "experiments/blocksize/blocksize.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"

namespace poslsh {
namespace {

namespace fs = std::filesystem;
using BlocksizeCli = testing::CliTest;

constexpr auto kExperimentTestPurpose = static_cast<StreamPurpose>(0xb10c51e);

TEST_F(BlocksizeCli, RowsAreTheSampledHashesMeasuredExactly) {
  const auto r =
      cli("blocksize --n 1,64,3000 --sigma 2.5 --s 1,8 --s-log 2 --trials 40 --seed 9 "
          "--threads 2 --quiet --out " +
          path("b.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CsvTable t = CsvTable::read(path("b.csv"));
  EXPECT_EQ(t.columns(), blocksize_columns());
  ASSERT_EQ(t.size(), 3u * 3u * 40u);
  for (std::size_t row = 0; row < t.size(); ++row) {
    const auto n = static_cast<std::int64_t>(t.number(row, "n"));
    const auto s = static_cast<std::int64_t>(t.number(row, "s"));
    const auto trial = static_cast<std::uint64_t>(t.number(row, "trial"));
    const auto hashes = draw_hashes(9, trial, s, 2.5);
    // The block-by-block oracle, not the closed form the driver uses.
    ASSERT_EQ(t.number(row, "b_max"), static_cast<double>(largest_block(hashes, n))) << row;
    double max_pitch = 0;
    for (const auto& h : hashes) max_pitch = std::max(max_pitch, h.pitch);
    ASSERT_EQ(t.number(row, "max_pitch"), max_pitch);
    ASSERT_EQ(t.number(row, "b_max_bound"), static_cast<double>(b_max_bound(n, 2.5, s, 0.01)));
    if (!t.text(row, "s_log_c").empty()) {
      EXPECT_EQ(s, std::max<std::int64_t>(1, static_cast<std::int64_t>(
                                                 std::ceil(2 * std::log(static_cast<double>(n))))));
    }
  }
  // Summary: one row per (n, sigma, s) with the law's predictions.
  const CsvTable summary = CsvTable::read(path("b.summary.csv"));
  ASSERT_EQ(summary.size(), 9u);
  const BlockSizeLaw law(3000, 2.5, 8);
  bool found = false;
  for (std::size_t row = 0; row < summary.size(); ++row) {
    if (summary.text(row, "n") == "3000" && summary.text(row, "s") == "8" &&
        summary.text(row, "s_log_c").empty()) {
      found = true;
      EXPECT_EQ(summary.number(row, "law_median_b_max"), static_cast<double>(median(law)));
      EXPECT_NEAR(summary.number(row, "law_mean_b_max"), mean(law), 1e-12);
      EXPECT_NEAR(summary.number(row, "law_mean_max_pitch"), expected_max_pitch(2.5, 8).value,
                  1e-12);
      EXPECT_EQ(summary.number(row, "trials"), 40);
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(BlocksizeCli, ThreadCountDoesNotChangeTheTable) {
  const std::string args =
      "blocksize --n 100,5000 --alibi-heads 4 --s 3 --s-log 1 --trials 30 "
      "--quiet --no-timing --out ";
  expect_same_table_for_1_and_2_threads(args);
  const CsvTable t = CsvTable::read(path("one.csv"));
  ASSERT_EQ(t.size(), 2u * 4u * 2u * 30u);
  EXPECT_EQ(t.number(0, "sigma"), alibi_head_sigmas(4)[0]);
}

// max_pitch / sigma of every row of an --alibi-heads table, per (n, s, trial)
// key, one value per head.
std::map<std::string, std::vector<double>> scaled_max_pitch_by_row(const CsvTable& t) {
  std::map<std::string, std::vector<double>> by_key;
  for (std::size_t row = 0; row < t.size(); ++row)
    by_key[t.text(row, "n") + "/" + t.text(row, "s") + "/" + t.text(row, "trial")].push_back(
        t.number(row, "max_pitch") / t.number(row, "sigma"));
  return by_key;
}

TEST_F(BlocksizeCli, HeadsShareRandomNumbersUnlessIndependentHeads) {
  // 4 heads: sigma_h = 4, 16, 64, 256, so max_pitch / sigma is exact.
  const std::string args =
      "blocksize --n 100,5000 --alibi-heads 4 --s 3 --s-log 1 --trials 30 --seed 2 "
      "--quiet --no-timing ";
  run_shared_and_independent_heads(args);
  if (HasFatalFailure()) return;
  EXPECT_EQ(testing::slurp(path("one.summary.csv")), testing::slurp(path("again.summary.csv")));
  // Shared (the default): one draw, rescaled; every head has the same max pitch / sigma.
  const auto shared = scaled_max_pitch_by_row(CsvTable::read(path("shared.csv")));
  ASSERT_EQ(shared.size(), 2u * 2u * 30u);
  for (const auto& [key, values] : shared) {
    ASSERT_EQ(values.size(), 4u) << key;
    for (double v : values) EXPECT_EQ(v, values[0]) << key;
  }
  // Independent: no row where two heads drew the same maximum.
  const auto independent = scaled_max_pitch_by_row(CsvTable::read(path("one.csv")));
  ASSERT_EQ(independent.size(), shared.size());
  for (const auto& [key, values] : independent) {
    ASSERT_EQ(values.size(), 4u) << key;
    EXPECT_EQ(std::set<double>(values.begin(), values.end()).size(), 4u) << key;
  }
  // Head h's rows are what its own seed gives (n = 5000 is the second block of cells).
  const auto sigmas = alibi_head_sigmas(4);
  const std::vector<SampleCount> counts = {{3, 0}, {0, 1}};
  const CsvTable t = CsvTable::read(path("one.csv"));
  for (std::size_t h = 0; h < 4; ++h) {
    const auto rows =
        blocksize_cell_rows(5000, sigmas[h], counts, 30, independent_head_seed(2, h), 0.01);
    for (std::size_t r = 0; r < rows.size(); ++r)
      ASSERT_EQ(t.row((4 + h) * rows.size() + r), rows[r]) << h << " " << r;
  }
  // 4 heads: the scales did not change with the reference rule, nor does the config.
  EXPECT_EQ(testing::slurp(path("shared.csv.meta.json")).find("get_slopes"), std::string::npos);
  const auto help = cli("blocksize --help");
  EXPECT_NE(help.out.find("share one draw of random numbers"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("unless --independent-heads is given"), std::string::npos) << help.out;
}

TEST_F(BlocksizeCli, ShippedConfigParsesAndChecks) {
  const std::string config = std::string(POSLSH_SOURCE_DIR) + "/configs/blocksize.toml";
  // The shipped grid with fewer n and trials (command line overrides the file).
  // The growth check needs two n where the law applies at 120 trials.
  const auto r = cli("blocksize --config " + config +
                     " --n 1024,1048576,1073741824 --trials 120 --quiet "
                     "--out " +
                     path("c.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CsvTable t = CsvTable::read(path("c.csv"));
  EXPECT_EQ(t.size(), 3u * 5u * 7u * 120u);  // 3 n x 5 sigma x (4 s + 3 c) x trials
  const auto check = cli("check " + path("c.csv"));
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("PASS  bound"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("PASS  law[n=1048576,sigma=1,s=8]"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("n/a   law[n=1024,sigma=256,s=512]"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("PASS  growth[sigma=16,c=2]"), std::string::npos) << check.out;
}

TEST_F(BlocksizeCli, BadInputIsOneLineAndNoFile) {
  const std::string out = " --out " + path("x.csv");
  expect_usage_error("blocksize --n 64 --s 2" + out, "--sigma");
  expect_usage_error("blocksize --n 64 --sigma 1 --alibi-heads 2 --s 2" + out, "--alibi-heads");
  expect_usage_error("blocksize --n 64 --sigma 1 --s 2 --independent-heads" + out,
                     "--independent-heads");
  expect_usage_error("blocksize --n 64 --sigma 1" + out, "--s");
  expect_usage_error("blocksize --n 0 --sigma 1 --s 2" + out, "--n");
  expect_usage_error("blocksize --n 64 --sigma -1 --s 2" + out, "--sigma");
  expect_usage_error("blocksize --n 64 --sigma 1 --s 0" + out, "--s");
  expect_usage_error("blocksize --n 64 --sigma 1 --s-log 0" + out, "--s-log");
  expect_usage_error("blocksize --n 64 --sigma 1 --s 2 --p 1" + out, "--p");
  expect_usage_error("blocksize --n 64 --sigma 1 --s 2 --trials 0" + out, "--trials");
  EXPECT_FALSE(fs::exists(path("x.csv")));
}

// A blocksize table whose b_max comes from an arbitrary pitch sampler.
using PitchSampler = std::function<double(double sigma, std::uint64_t trial, std::uint64_t k)>;

struct TableSpec {
  std::vector<std::int64_t> n;
  std::vector<double> sigma;
  std::vector<std::int64_t> s;
  double s_log_c = 0;  // > 0: s = ceil(c ln n) instead of the s list
  int trials = 1000;
  double p = 0.01;
};

CsvTable make_table(const TableSpec& spec, const PitchSampler& pitch,
                    const std::function<std::int64_t(std::int64_t)>& bound_edit = nullptr) {
  std::string text = csv_line(blocksize_columns());
  for (const auto n : spec.n) {
    for (const double sigma : spec.sigma) {
      std::vector<std::int64_t> ss = spec.s;
      if (spec.s_log_c > 0)
        ss = {static_cast<std::int64_t>(std::ceil(spec.s_log_c * std::log(double(n))))};
      for (const auto s : ss) {
        std::int64_t bound = b_max_bound(n, sigma, s, spec.p);
        if (bound_edit) bound = bound_edit(bound);
        for (int t = 0; t < spec.trials; ++t) {
          std::vector<PositionalHash> hashes;
          double max_pitch = 0;
          for (std::int64_t k = 0; k < s; ++k) {
            const double d = pitch(sigma, std::uint64_t(t), std::uint64_t(k));
            Stream u(77, std::uint64_t(t), std::uint64_t(k), kExperimentTestPurpose);
            hashes.push_back({d, d * u.uniform()});
            max_pitch = std::max(max_pitch, d);
          }
          text += csv_line({std::to_string(n), format_value(sigma), std::to_string(s),
                            spec.s_log_c > 0 ? format_value(spec.s_log_c) : "", std::to_string(t),
                            format_value(max_pitch), std::to_string(b_max(hashes, n)),
                            std::to_string(bound), format_value(spec.p)});
        }
      }
    }
  }
  return CsvTable::parse(text);
}

const PitchSampler kCorrect = [](double sigma, std::uint64_t t, std::uint64_t k) {
  return draw_hash(123, t, k, sigma).pitch;
};

int count_outcomes(const std::vector<CheckOutcome>& outcomes, const std::string& prefix,
                   Verdict v) {
  int c = 0;
  for (const auto& o : outcomes)
    if (o.check.rfind(prefix, 0) == 0 && o.verdict == v) ++c;
  return c;
}

TEST(BlocksizeChecks, CorrectSamplerPassesAndSmallNIsNotApplicable) {
  const TableSpec spec{.n = {256, std::int64_t{1} << 30}, .sigma = {4, 16}, .s = {8, 64}};
  const auto outcomes = check_blocksize_table(make_table(spec, kCorrect));
  EXPECT_EQ(count_outcomes(outcomes, "bound", Verdict::kPass), 1);
  EXPECT_EQ(count_outcomes(outcomes, "law[n=1073741824", Verdict::kPass), 4);
  EXPECT_EQ(count_outcomes(outcomes, "law[n=256", Verdict::kNotApplicable), 4);
  EXPECT_EQ(count_outcomes(outcomes, "", Verdict::kFail), 0);
}

// Negative controls: pitch x 1.2 and an exponential pitch of the same mean must
// fail check 2 in every cell, even at the Bonferroni threshold of 4 cells.
TEST(BlocksizeChecks, WrongPitchLawsFailTheFit) {
  const TableSpec spec{.n = {std::int64_t{1} << 30}, .sigma = {4, 16}, .s = {8, 64}};
  const PitchSampler scaled = [](double sigma, std::uint64_t t, std::uint64_t k) {
    return 1.2 * draw_hash(123, t, k, sigma).pitch;
  };
  const PitchSampler exponential = [](double sigma, std::uint64_t t, std::uint64_t k) {
    Stream rng(123, t, k, kExperimentTestPurpose);
    return -2 * sigma * std::log(rng.uniform_pos());
  };
  for (const auto* sampler : {&scaled, &exponential}) {
    const auto outcomes = check_blocksize_table(make_table(spec, *sampler));
    EXPECT_EQ(count_outcomes(outcomes, "law[", Verdict::kFail), 4);
  }
}

// A heavier-tailed pitch (exponential, mean 2 sigma) exceeds the correct bound
// in ~11% of trials against p = 1%.
TEST(BlocksizeChecks, ViolatedBoundFails) {
  TableSpec spec{.n = {1 << 20}, .sigma = {8}, .s = {16}, .trials = 300};
  const PitchSampler exponential = [](double sigma, std::uint64_t t, std::uint64_t k) {
    Stream rng(123, t, k, kExperimentTestPurpose);
    return -2 * sigma * std::log(rng.uniform_pos());
  };
  const auto outcomes = check_blocksize_table(make_table(spec, exponential));
  EXPECT_EQ(count_outcomes(outcomes, "bound", Verdict::kFail),
            2);  // the cell line and the summary line
  EXPECT_EQ(count_outcomes(outcomes, "bound", Verdict::kFail) +
                count_outcomes(outcomes, "bound", Verdict::kPass),
            2);
}

// An edited bound column is unusable input, not a verdict: the bound is
// recomputed from (n, sigma, s, p) on every row.
TEST(BlocksizeChecks, EditedBoundColumnThrows) {
  TableSpec spec{.n = {1 << 20}, .sigma = {8}, .s = {16}, .trials = 300};
  for (const auto& edit : {std::function<std::int64_t(std::int64_t)>(
                               [](std::int64_t) { return median(BlockSizeLaw(1 << 20, 8.0, 16)); }),
                           std::function<std::int64_t(std::int64_t)>(
                               [](std::int64_t) { return std::int64_t{1000}; })}) {
    try {
      check_blocksize_table(make_table(spec, kCorrect, edit));
      ADD_FAILURE() << "no throw";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("row 2: b_max_bound"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("disagrees with its recomputation 79"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(BlocksizeChecks, GrowthPassesForLogSamplesAndFailsForLinearOnes) {
  TableSpec spec{.n = {1 << 10, 1 << 20, std::int64_t{1} << 30},
                 .sigma = {4},
                 .s = {},
                 .s_log_c = 2,
                 .trials = 100};
  auto outcomes = check_blocksize_table(make_table(spec, kCorrect));
  EXPECT_EQ(count_outcomes(outcomes, "growth[sigma=4,c=2]", Verdict::kPass), 1);
  // Negative control: a pitch growing like ln n (the sampler ignores n, so
  // scale it through sigma per n) breaks the ln ln n law. The table claims
  // sigma = 4 throughout, and its bound column is the one of sigma = 4.
  // (At 100 trials the law applies from n = 2^20 on, for sigma = 4.)
  std::string text = csv_line(blocksize_columns());
  for (const std::int64_t n : {std::int64_t{1} << 20, std::int64_t{1} << 30}) {
    const double stretch = std::log(static_cast<double>(n)) / std::log(1024.0);  // 2 or 3
    for (int t = 0; t < 100; ++t) {
      const std::int64_t s = static_cast<std::int64_t>(std::ceil(2 * std::log(double(n))));
      const auto hashes = draw_hashes(5, std::uint64_t(t), s, 4.0 * stretch);
      text += csv_line({std::to_string(n), "4", std::to_string(s), "2", std::to_string(t), "1",
                        std::to_string(b_max(hashes, n)),
                        std::to_string(b_max_bound(n, 4.0, s, 0.01)), "0.01"});
    }
  }
  outcomes = check_blocksize_table(CsvTable::parse(text));
  EXPECT_EQ(count_outcomes(outcomes, "growth[sigma=4,c=2]", Verdict::kFail), 1);
}

TEST(BlocksizeChecks, RejectsMalformedTables) {
  const std::string header = csv_line(blocksize_columns());
  EXPECT_THROW(check_blocksize_table(CsvTable::parse(header + "64,1,2,,0,1.5,65,3,0.01\n")),
               std::invalid_argument);  // b_max > n
  EXPECT_THROW(check_blocksize_table(CsvTable::parse(header + "64,1,2,,0,1.5,2.5,3,0.01\n")),
               std::invalid_argument);  // non-integer b_max
  EXPECT_THROW(check_blocksize_table(CsvTable::parse(header + "64,1,2,,0,1.5,2,3,1.5\n")),
               std::invalid_argument);  // p outside (0, 1)
}

}  // namespace
}  // namespace poslsh
