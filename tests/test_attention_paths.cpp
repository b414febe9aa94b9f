// The path probe (experiments/attention/attention_paths.h): its long-double oracle
// against closed forms at tiny n, the sound paths of the library inside
// their precision's allowance at an n off the tiles, each planted path bug
// (estimator_defect.h) outside it on exactly the paths it breaks, and
// `poslsh attention --paths-n` end to end: the paths line, thread-count
// independence, bad options. Deterministic: fixed seeds, no statistical level.
#include <gtest/gtest.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/lsh_attention.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "experiments/attention/attention.h"
#include "experiments/attention/attention_paths.h"
#include "runner/csv_table.h"

namespace poslsh {
namespace attention_paths_test {

RowMatrix<double> constant(std::int64_t rows, std::int64_t cols, double value) {
  return RowMatrix<double>::Constant(rows, cols, value);
}

TEST(AttentionOracle, OneKeyReturnsItsValue) {
  RowMatrix<double> q(1, 3), k(1, 3), v(1, 2);
  q << 0.3, -2, 5;
  k << 1, 4, -0.5;
  v << 1.25, -7;
  for (const Form form : {Form::kSymmetric, Form::kCausal}) {
    const auto out = attention_oracle(q, k, v, alibi_prior(2.0, form));
    EXPECT_EQ(out(0, 0), 1.25);
    EXPECT_EQ(out(0, 1), -7);
  }
}

TEST(AttentionOracle, UniformLogitsGiveTheAlibiWeightsInClosedForm) {
  // q = 0: every logit 0, so row i = sum_j e^(-|i-j|/sigma) v_j / sum_j e^(-|i-j|/sigma).
  const double sigma = 3, a = std::exp(-1 / sigma), b = std::exp(-2 / sigma);
  RowMatrix<double> v(3, 1);
  v << 1, 10, 100;
  const auto sym = attention_oracle(constant(3, 2, 0), constant(3, 2, 1), v,
                                    alibi_prior(sigma, Form::kSymmetric));
  EXPECT_NEAR(sym(0, 0), (1 + 10 * a + 100 * b) / (1 + a + b), 1e-13);
  EXPECT_NEAR(sym(1, 0), (a + 10 + 100 * a) / (1 + 2 * a), 1e-13);
  const auto causal = attention_oracle(constant(3, 2, 0), constant(3, 2, 1), v,
                                       alibi_prior(sigma, Form::kCausal));
  EXPECT_EQ(causal(0, 0), 1);
  EXPECT_NEAR(causal(2, 0), (b + 10 * a + 100) / (1 + a + b), 1e-13);
  // Uniform values: any weights average to the value itself.
  const auto flat = attention_oracle(constant(3, 2, 0.7), constant(3, 2, -1.3),
                                     constant(3, 1, 2.5), alibi_prior(0.5, Form::kSymmetric));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(flat(i, 0), 2.5, 1e-15);
}

TEST(AttentionOracle, LshPriorIsTheHashCountsOfTheKernel) {
  // n = 300: four query tiles and a partial fifth, two key tiles.
  const std::int64_t n = 300;
  const QkvData data = synthetic_qkv(3, n, 8, 1.0);
  const auto q = data.q.head(0), k = data.k.head(0), v = data.v.head(0);
  for (const Form form : {Form::kSymmetric, Form::kCausal}) {
    const auto hashes = draw_hashes(3, 1, 6, 9.0);
    const auto fast = lsh_attention<double>(q, k, v, MaskMean(n, hashes, form));
    const auto oracle = attention_oracle(q, k, v, lsh_prior(hashes, n, form));
    EXPECT_LT((fast - oracle).cwiseAbs().maxCoeff(), 1e-13);
  }
}

TEST(AttentionOracle, BandPriorKeepsTheTileRangeOnly) {
  const LogPrior p = band_prior(4.0, Form::kSymmetric, {10, 0});
  EXPECT_TRUE(std::isinf(p(0, 74)));  // tile [0, 64) keeps [-10, 74)
  EXPECT_EQ(p(0, 73), -73 / 4.0);
  EXPECT_TRUE(std::isinf(p(64, 63)));  // tile [64, 128) with w = 0 keeps [64, 128)
  EXPECT_EQ(p(64, 64), 0);
}

TEST(AttentionPaths, AllowanceIsAMultipleOfTheUnitRoundoff) {
  EXPECT_EQ(path_unit_roundoff(true), 0x1p-24);
  EXPECT_EQ(path_unit_roundoff(false), 0x1p-53);
  // 2 u ((16 + 2)(3 + 1) + 200 + 8) = 560 u
  EXPECT_EQ(path_rounding_allowance(0x1p-24, 200, 16, 3.0), 560 * 0x1p-24);
}

// n = 200: three full 64-row query tiles and a partial one (8 rows), one
// full key tile and a partial one.
constexpr std::int64_t kN = 200;

struct ProbedRow {
  std::string estimator, precision, layout;
  std::int64_t head;
  double deviation, allowance, max_error, certificate;
};

std::vector<ProbedRow> probe(const std::string& defect, Form form = Form::kSymmetric) {
  const auto rows = attention_path_rows(
      {.n = kN, .seed = 11, .form = form, .defect = parse_planted_defect(defect)});
  std::map<std::string, std::size_t> col;
  for (std::size_t c = 0; c < attention_columns().size(); ++c) col[attention_columns()[c]] = c;
  std::vector<ProbedRow> out;
  for (const auto& r : rows)
    out.push_back({r[col["estimator"]], r[col["precision"]], r[col["layout"]],
                   std::stoll(r[col["head"]]), std::stod(r[col["estimator_deviation"]]),
                   std::stod(r[col["rounding_allowance"]]), std::stod(r[col["max_error"]]),
                   std::stod(r[col["certificate"]])});
  return out;
}

std::string describe(const ProbedRow& r) {
  return r.estimator + " " + r.precision + " " + r.layout + " head " + std::to_string(r.head);
}

TEST(AttentionPaths, EverySoundPathIsWellInsideItsAllowanceInBothForms) {
  for (const Form form : {Form::kSymmetric, Form::kCausal}) {
    const auto rows = probe("sound", form);
    // 6 paths (exact and lsh also multi-head, lsh with independent heads too)
    // x 2 precisions x 5 heads.
    ASSERT_EQ(rows.size(), 60u);
    for (const auto& r : rows) {
      SCOPED_TRACE(describe(r));
      // A margin of 10 at least: the allowance is a worst case, not a fit.
      EXPECT_LT(r.deviation, r.allowance / 10);
      EXPECT_LE(r.max_error, r.certificate + r.allowance);
    }
  }
}

// Which rows a bug must push beyond their allowance, and which it must not.
void expect_caught_exactly(const std::string& defect,
                           const std::function<bool(const ProbedRow&)>& broken) {
  std::size_t caught = 0;
  for (const auto& r : probe(defect)) {
    SCOPED_TRACE(defect + ": " + describe(r));
    if (broken(r)) {
      // Far outside: ten times the allowance at least.
      EXPECT_GT(r.deviation, 10 * r.allowance);
      ++caught;
    } else {
      EXPECT_LT(r.deviation, r.allowance / 10);
    }
  }
  EXPECT_GT(caught, 0u) << defect;
}

TEST(AttentionPaths, Float32FlushIsCaughtOnEveryFloat32PathOnly) {
  // Every head of every float32 path: the probe's logits span more than e^7.
  expect_caught_exactly("estimator-float32-flush",
                        [](const ProbedRow& r) { return r.precision == "float32"; });
}

TEST(AttentionPaths, MultiHeadFirstSigmaIsCaughtOnTheMultiHeadOverloadsOnly) {
  // Head 0 computes with its own sigma and is right; the independent-heads
  // rows call the multi-head overload too.
  expect_caught_exactly("estimator-multi-head-first-sigma", [](const ProbedRow& r) {
    return r.layout != "single-head" && r.head > 0;
  });
}

TEST(AttentionPaths, SkippedPartialTileIsCaughtOnEveryPath) {
  expect_caught_exactly("estimator-partial-tile-skipped", [](const ProbedRow&) { return true; });
}

// The value width differs from the key width (kPathDv != kPathD), so a
// logit scale taken from the wrong one is wrong on every path.
TEST(AttentionPaths, LogitScaleFromTheValueWidthIsCaughtOnEveryPath) {
  static_assert(kPathDv != kPathD);
  expect_caught_exactly("estimator-logit-scale-from-dv", [](const ProbedRow&) { return true; });
}

// Press et al.'s interleave matters only for a head count that is not a power
// of two: the probe has 5 heads. Scales 2^(8h/H) move no path row off its
// definition (the oracle uses the same scales) and fail the closed-form check.
TEST(AttentionPaths, HeadScalesAreCheckedAgainstTheClosedForm) {
  static_assert((kPathHeads & (kPathHeads - 1)) != 0);
  for (const auto& r : probe("estimator-slope-interleave"))
    EXPECT_LT(r.deviation, r.allowance / 10) << describe(r);
  EXPECT_EQ(alibi_head_sigmas(5), (std::vector<double>{4, 16, 64, 256, 2}));
}

const std::string kArgs =
    "attention --n 128 --d 4 --sigma 4 --s 2 --trials 2 --estimator lsh --paths-n 130 "
    "--no-timing --quiet ";

class AttentionPathsCli : public testing::CliTest {
 protected:
  // The paths line `poslsh check` prints for a table ("PASS  paths: ...").
  std::string paths_line(const std::string& table) const {
    const auto r = cli("check " + table);
    const auto at = r.out.find("  paths: ");
    if (at == std::string::npos) {
      ADD_FAILURE() << "no paths line: " << r.out << r.err;
      return {};
    }
    const auto start = r.out.rfind('\n', at) + 1;  // npos + 1 = 0 on the first line
    return r.out.substr(start, r.out.find('\n', at) - start);
  }
};

TEST_F(AttentionPathsCli, PathRowsAreByteIdenticalForAnyThreadCount) {
  ASSERT_EQ(cli(kArgs + "--threads 1 --out " + path("one.csv")).exit_code, 0);
  ASSERT_EQ(cli(kArgs + "--threads 2 --out " + path("two.csv")).exit_code, 0);
  const std::string one = testing::slurp(path("one.csv"));
  EXPECT_EQ(one, testing::slurp(path("two.csv")));
  EXPECT_NE(one.find("path-lsh"), std::string::npos);
  EXPECT_NE(one.find("float32,multi-head"), std::string::npos);
  EXPECT_EQ(paths_line(path("one.csv")).rfind("PASS  paths: all 60 path rows", 0), 0u);
}

TEST_F(AttentionPathsCli, EachPlantedPathBugFailsThePathsLine) {
  for (const char* defect : {"estimator-float32-flush", "estimator-multi-head-first-sigma",
                             "estimator-partial-tile-skipped", "estimator-logit-scale-from-dv",
                             "estimator-slope-interleave", "estimator-shared-head-seeds"}) {
    SCOPED_TRACE(defect);
    const std::string out = path(std::string(defect) + ".csv");
    ASSERT_EQ(cli(kArgs + "--plant-defect " + std::string(defect) + " --out " + out).exit_code, 0);
    const std::string line = paths_line(out);
    EXPECT_EQ(line.rfind("FAIL  paths: ", 0), 0u) << line;
  }
}

// A binning defect that keeps the partition law (block ids from 1-based
// positions) moves every mask the estimator reads; the paths' oracle and the
// estimator's cut blocks from the definition in code of their own
// (reference_blocks.h), so both lines FAIL it.
TEST_F(AttentionPathsCli, AOneBasedBinningFailsThePathsAndEstimatorLines) {
  const std::string out = path("one-based.csv");
  ASSERT_EQ(cli(kArgs + "--plant-defect one-based-bins --out " + out).exit_code, 0);
  EXPECT_EQ(paths_line(out).rfind("FAIL  paths: ", 0), 0u) << paths_line(out);
  const auto checked = cli("check " + out);
  EXPECT_NE(checked.out.find("FAIL  estimator:"), std::string::npos) << checked.out;
}

// Independent heads draw distinct hashes, the same each time: the rows of
// the independent-heads layout carry each head's digest, and heads that all
// draw from the run's seed FAIL the paths line while every row stays on its
// definition (the oracle reads the same draws).
TEST_F(AttentionPathsCli, IndependentHeadsDrawDistinctReproducibleHashes) {
  const std::string sound = path("sound.csv"), shared = path("shared.csv");
  ASSERT_EQ(cli(kArgs + "--out " + sound).exit_code, 0);
  const CsvTable t = CsvTable::read(sound);
  std::set<std::string> digests;
  int rows = 0;
  for (std::size_t r = 0; r < t.size(); ++r)
    if (t.text(r, "layout") == "independent-heads" && t.text(r, "precision") == "float64") {
      digests.insert(t.text(r, "hash_digest"));
      ++rows;
    }
  EXPECT_EQ(rows, kPathHeads);
  EXPECT_EQ(digests.size(), static_cast<std::size_t>(kPathHeads));
  ASSERT_EQ(cli(kArgs + "--plant-defect estimator-shared-head-seeds --out " + shared).exit_code, 0);
  const std::string line = paths_line(shared);
  EXPECT_EQ(line.rfind("FAIL  paths: independent heads 0 and 1 draw the same hashes", 0), 0u)
      << line;
  for (const auto& r : probe("estimator-shared-head-seeds"))
    EXPECT_LT(r.deviation, r.allowance / 10) << describe(r);
}

TEST_F(AttentionPathsCli, RejectsAPathsNOutOfRange) {
  for (const char* bad : {"-1", "4097"}) {
    expect_usage_error(kArgs + "--paths-n " + bad + " --out " + path("bad.csv"), "--paths-n");
    EXPECT_FALSE(std::filesystem::exists(path("bad.csv"))) << bad;
  }
}

}  // namespace attention_paths_test
}  // namespace poslsh
