// `poslsh convergence` end to end, and the power of its checks: a good table
// passes, a table from a wrong sampler or with errors scaled by s^-0.25 fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "cli_common.h"
#include "cli_harness.h"
#include "convergence.h"
#include "csv_table.h"
#include "rng.h"

namespace poslsh {
namespace {

using ConvergenceCli = testing::CliTest;

const std::vector<std::int64_t> kS = {4, 8, 16, 32, 64, 128, 256};
constexpr std::int64_t kN = 512;
constexpr int kTrials = 8;

// A wrong sampler: pitch ~ Gamma(1, 2 sigma) (one uniform instead of two; same
// mean pitch), shift uniform as it should be. E[M] is then not L*.
std::vector<PositionalHash> exponential_pitch_hashes(std::uint64_t trial, std::int64_t s,
                                                     double sigma) {
  std::vector<PositionalHash> h;
  for (std::int64_t k = 0; k < s; ++k) {
    Stream rng(99, trial, k, StreamPurpose::kHash);
    const double pitch = -2 * sigma * std::log(rng.uniform_pos());
    h.push_back({pitch, pitch * rng.uniform()});
  }
  return h;
}

enum class Table { kGood, kWrongSampler, kScaled };

CsvTable make_table(Table kind) {
  std::string text = csv_line(convergence_columns());
  ConvergenceSettings settings;
  settings.seed = 5;
  const auto& cols = convergence_columns();
  const auto col = [&](const std::string& c) {
    return static_cast<std::size_t>(std::find(cols.begin(), cols.end(), c) - cols.begin());
  };
  for (double sigma : {4.0, 16.0}) {
    for (std::int64_t s : kS) {
      for (int t = 0; t < kTrials; ++t) {
        const auto hashes = kind == Table::kWrongSampler ? exponential_pitch_hashes(t, s, sigma)
                                                         : draw_hashes(5, t, s, sigma);
        CsvRow row = convergence_row(kN, sigma, t, hashes, settings);
        if (kind == Table::kScaled) {
          const double f = std::pow(static_cast<double>(s), -0.25);
          for (const char* c : {"spectral_error", "max_error"})
            row[col(c)] = format_double(std::stod(row[col(c)]) * f);
        }
        text += csv_line(row);
      }
    }
  }
  return CsvTable::parse(text);
}

int failures(const std::vector<CheckOutcome>& outcomes, const std::string& prefix) {
  int f = 0;
  for (const auto& o : outcomes)
    if (o.verdict == Verdict::kFail && o.check.rfind(prefix, 0) == 0) ++f;
  return f;
}

int passes(const std::vector<CheckOutcome>& outcomes) {
  int p = 0;
  for (const auto& o : outcomes) p += o.verdict == Verdict::kPass;
  return p;
}

TEST(ConvergenceChecks, GoodTablePasses) {
  const auto out = check_convergence_table(make_table(Table::kGood));
  for (const auto& o : out) EXPECT_NE(o.verdict, Verdict::kFail) << o.check << ": " << o.detail;
  // 3 bounds + 2 groups x (2 rates + 1 constant).
  EXPECT_EQ(passes(out), 9);
}

TEST(ConvergenceChecks, WrongSamplerFails) {
  const auto out = check_convergence_table(make_table(Table::kWrongSampler));
  // The biased estimator's error stops falling with s: the rate fails for both
  // error measures and both scales (measured slopes about -0.32 spectral and
  // -0.39 max-norm), and the normalised constant drifts by more than 2x. (Its
  // error stays under the loose spectral and max-norm bounds at this n.)
  EXPECT_EQ(failures(out, "rate[symmetric,n=512,sigma=4] spectral"), 1);
  EXPECT_EQ(failures(out, "rate[symmetric,n=512,sigma=16] spectral"), 1);
  EXPECT_GE(failures(out, "rate"), 3);
  EXPECT_EQ(failures(out, "constant"), 2);
}

TEST(ConvergenceChecks, ErrorsScaledByPowerOfSFail) {
  const auto out = check_convergence_table(make_table(Table::kScaled));
  EXPECT_EQ(failures(out, "rate"), 4);
  EXPECT_EQ(failures(out, "constant"), 2);
}

TEST(ConvergenceChecks, BoundViolationsBeyondBinomialAllowanceFail) {
  // 60 trials of one row each with p = 0.01: a binomial(60, 0.01) exceeds 4
  // w.p. 3.5e-4 and 3 w.p. 3.1e-3 (computed independently), so 4 violating
  // trials pass and 5 fail.
  for (int violations : {4, 5}) {
    std::string text = csv_line(convergence_columns());
    for (int r = 0; r < 60; ++r) {
      const std::string max_error = r < violations ? "0.9" : "0.1";
      text += csv_line({"512", "4", "4", std::to_string(r), "symmetric", "0.01", "1", "1e-7", "1",
                        "50", max_error, "0.5", "3", "10", "40", "20", "20", "ok", "0.1"});
    }
    const auto out = check_convergence_table(CsvTable::parse(text));
    EXPECT_EQ(failures(out, "bound max"), violations == 5 ? 1 : 0) << violations;
  }
}

TEST(ConvergenceChecks, NotConvergedRowsAreLeftOutAndCounted) {
  std::string text = csv_line(convergence_columns());
  text += csv_line({"512", "4", "4", "0", "symmetric", "0.01", "", "inf", "1", "50", "0.1", "0.5",
                    "3", "10", "40", "2", "2", "not_converged", "0.1"});
  const auto out = check_convergence_table(CsvTable::parse(text));
  bool counted = false;
  for (const auto& o : out)
    if (o.check == "spectral solves") counted = o.detail.rfind("1 of 1", 0) == 0;
  EXPECT_TRUE(counted);
  EXPECT_EQ(failures(out, "bound spectral"), 0);
}

TEST_F(ConvergenceCli, QuickConfigRunsAndPassesChecks) {
  const std::string cfg = std::string(POSLSH_SOURCE_DIR) + "/configs/convergence-quick.toml";
  auto r = cli("convergence --config " + cfg + " --threads 2 --no-timing --quiet --out " +
               path("a.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli("convergence --config " + cfg + " --threads 1 --no-timing --quiet --out " +
          path("b.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::slurp(path("a.csv")), testing::slurp(path("b.csv")));
  const CsvTable t = CsvTable::read(path("a.csv"));
  EXPECT_EQ(t.size(), 1u * 2 * 9 * 16);
  r = cli("check " + path("a.csv"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("checks: 9 passed, 0 failed"), std::string::npos) << r.out;
}

TEST_F(ConvergenceCli, RowsUseTheHashesThatSampleExports) {
  ASSERT_EQ(cli("convergence --n 300 --sigma 6 --s 16 --trials 3 --seed 11 --quiet --out " +
                path("c.csv"))
                .exit_code,
            0);
  ASSERT_EQ(
      cli("sample --n 300 --sigma 6 --s 16 --seed 11 --trial 2 --out " + path("h.csv")).exit_code,
      0);
  const CsvTable hashes_csv = CsvTable::read(path("h.csv"));
  std::vector<PositionalHash> hashes;
  for (std::size_t k = 0; k < hashes_csv.size(); ++k)
    hashes.push_back({hashes_csv.number(k, "pitch"), hashes_csv.number(k, "shift")});
  ConvergenceSettings settings;
  settings.seed = 11;
  const CsvRow row = convergence_row(300, 6, 2, hashes, settings);
  const CsvTable t = CsvTable::read(path("c.csv"));
  ASSERT_EQ(t.size(), 3u);
  const auto& cols = convergence_columns();
  for (std::size_t c = 0; c + 1 < cols.size(); ++c) EXPECT_EQ(t.row(2)[c], row[c]) << cols[c];
}

TEST_F(ConvergenceCli, AlibiHeadsCausalAndNotConverged) {
  ASSERT_EQ(cli("convergence --n 64 --alibi-heads 2 --s 4 --trials 1 --causal --max-lanczos 2 "
                "--spectral-tol 1e-12 --quiet --out " +
                path("d.csv"))
                .exit_code,
            0);
  const CsvTable t = CsvTable::read(path("d.csv"));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.number(0, "sigma"), 16.0);   // 2^(8/2)
  EXPECT_EQ(t.number(1, "sigma"), 256.0);  // 2^(16/2)
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(t.text(r, "form"), "causal");
    EXPECT_EQ(t.text(r, "status"), "not_converged");
    EXPECT_EQ(t.text(r, "spectral_error"), "");
    EXPECT_EQ(t.number(r, "lanczos_iterations"), 2);
  }
}

TEST_F(ConvergenceCli, BadInputIsAUsageError) {
  const std::string out = " --quiet --out " + path("x.csv");
  expect_usage_error("convergence --alibi-heads 4 --sigma 8" + out, "--alibi-heads");
  expect_usage_error("convergence --p 1.5" + out, "--p");
  expect_usage_error("convergence --n 0" + out, "--n");
  expect_usage_error("convergence --s 4,0" + out, "--s");
  expect_usage_error("convergence --sigma -1" + out, "--sigma");
  expect_usage_error("convergence --trials 0" + out, "--trials");
  expect_usage_error("convergence --spectral-tol 0" + out, "--spectral-tol");
  std::ofstream(path("bad.toml")) << "[convergence]\nn = [64]\nbogus = 3\n";
  expect_usage_error("convergence --config " + path("bad.toml") + out, "bogus");
  EXPECT_FALSE(std::filesystem::exists(path("x.csv")));
}

}  // namespace
}  // namespace poslsh
