// End-to-end tests of `poslsh attention`, its checks and `poslsh bench attention`.
#include <gtest/gtest.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/attention_bounds.h>
#include <poslsh/lsh_attention.h>
#include <poslsh/npy.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_harness.h"
#include "experiments/attention/attention.h"
#include "runner/csv_table.h"

namespace poslsh {
namespace {

using testing::CliTest;
using AttentionCli = CliTest;

TEST_F(AttentionCli, TableRowsMatchTheLibraryAndPassTheChecks) {
  const std::string out = path("a.csv");
  const auto r =
      cli("attention --n 256 --d 8 --sigma 4 --s 1,4,16,64 --trials 3 --seed 5 "
          "--quiet --out " +
          out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CsvTable t = CsvTable::read(out);
  // fixed: 1 row; lsh and matched window: 4 s x 3 trials each.
  ASSERT_EQ(t.size(), 1u + 2 * 12);
  // Recompute one lsh row with the library and the hashes `poslsh sample` exports.
  const QkvData data = synthetic_qkv(5, 256, 8, 1.0);
  const MaskMean mask(256, draw_hashes(5, 2, 16, 4.0), Form::kSymmetric);
  const auto exact =
      exact_alibi_attention<double>(data.q.data, data.k.data, data.v.data, 4.0, Form::kSymmetric);
  const auto approx = lsh_attention<double>(data.q.data, data.k.data, data.v.data, mask);
  bool found = false;
  for (std::size_t row = 0; row < t.size(); ++row) {
    if (t.text(row, "estimator") != "lsh" || t.number(row, "s") != 16 ||
        t.number(row, "trial") != 2)
      continue;
    found = true;
    EXPECT_DOUBLE_EQ(t.number(row, "max_error"), (approx - exact).cwiseAbs().maxCoeff());
    EXPECT_LE(t.number(row, "max_error"), t.number(row, "certificate"));
  }
  EXPECT_TRUE(found);
  // What does not apply is empty, not a placeholder 0 a reader would average:
  // s and trial of fixed blocks, the width of LSH, the block size of a window.
  for (std::size_t row = 0; row < t.size(); ++row) {
    const std::string est = t.text(row, "estimator");
    SCOPED_TRACE("row " + std::to_string(CsvTable::line_of(row)) + " " + est);
    EXPECT_EQ(t.text(row, "s").empty(), est == "fixed");
    EXPECT_EQ(t.text(row, "trial").empty(), est == "fixed");
    EXPECT_EQ(t.text(row, "width").empty(), est == "lsh");
    EXPECT_EQ(t.text(row, "largest_block").empty(), est == "window");
    for (const char* col : {"s", "width", "largest_block"}) {
      if (!t.text(row, col).empty()) {
        EXPECT_GE(t.number(row, col), 1) << col;
      }
    }
  }
  const auto c = cli("check " + out);
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("PASS  certificate"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("info  uniform-bound"), std::string::npos) << c.out;
  // The rate line is descriptive; 3 trials are too few for the error-law
  // lines' level, said as n/a with the trials they need.
  EXPECT_NE(c.out.find("info  rate["), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("n/a   error-law["), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("needs >= "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("info  beats-fixed["), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("info  window-at-equal-cost["), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("PASS  trials-distinct["), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("PASS  estimator: on all 12 rows"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("checks: 3 passed, 0 failed, 4 not applicable, 4 info"), std::string::npos)
      << c.out;
}

TEST_F(AttentionCli, ByteIdenticalForAnyThreadCount) {
  const std::string args =
      "attention --n 200,300 --d 4 --alibi-heads 2 --s 2,8 --trials 2 "
      "--causal --no-timing --quiet ";
  ASSERT_EQ(cli(args + "--threads 1 --out " + path("one.csv")).exit_code, 0);
  ASSERT_EQ(cli(args + "--threads 3 --out " + path("three.csv")).exit_code, 0);
  EXPECT_EQ(testing::slurp(path("one.csv")), testing::slurp(path("three.csv")));
  EXPECT_NE(testing::slurp(path("one.csv")).find("causal"), std::string::npos);
}

TEST_F(AttentionCli, HeadsShareRandomNumbersUnlessIndependentHeads) {
  const std::string args =
      "attention --n 160 --d 4 --alibi-heads 3 --s 4 --trials 2 --seed 3 --estimator lsh "
      "--no-timing --quiet ";
  run_shared_and_independent_heads(args);
  if (HasFatalFailure()) return;
  // Each lsh row against the library with the head's seed: --seed itself when
  // shared, its own with --independent-heads. Q, K, V are the same for every head.
  const QkvData data = synthetic_qkv(3, 160, 4, 1.0);
  const auto sigmas = alibi_head_sigmas(3);
  for (const bool independent : {false, true}) {
    const CsvTable t = CsvTable::read(path(independent ? "one.csv" : "shared.csv"));
    ASSERT_EQ(t.size(), 3u * 2u);
    for (std::size_t row = 0; row < t.size(); ++row) {
      const auto h = static_cast<std::size_t>(t.number(row, "head"));
      const auto trial = static_cast<std::uint64_t>(t.number(row, "trial"));
      ASSERT_EQ(t.number(row, "sigma"), sigmas[h]);
      const MaskMean mask(160, draw_hashes(head_seed(3, h, independent), trial, 4, sigmas[h]),
                          Form::kSymmetric);
      const auto exact = exact_alibi_attention<double>(data.q.data, data.k.data, data.v.data,
                                                       sigmas[h], Form::kSymmetric);
      const auto approx = lsh_attention<double>(data.q.data, data.k.data, data.v.data, mask);
      EXPECT_EQ(t.number(row, "largest_block"), static_cast<double>(mask.largest_block()))
          << independent << " " << row;
      EXPECT_DOUBLE_EQ(t.number(row, "max_error"), (approx - exact).cwiseAbs().maxCoeff())
          << independent << " " << row;
    }
  }
  const auto help = cli("attention --help");
  EXPECT_NE(help.out.find("share one draw of random numbers"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("unless --independent-heads is given"), std::string::npos) << help.out;
}

TEST_F(AttentionCli, ReadsNpyDirectoriesAndRejectsMalformedOnes) {
  const QkvData data = synthetic_qkv(1, 120, 4, 1.0);
  std::filesystem::create_directories(path("qkv"));
  write_npy(path("qkv/q.npy"), {120, 4}, data.q.data.data(), NpyDtype::kFloat32);
  write_npy(path("qkv/k.npy"), {120, 4}, data.k.data.data(), NpyDtype::kFloat64);
  write_npy(path("qkv/v.npy"), {120, 4}, data.v.data.data(), NpyDtype::kFloat64);
  const auto ok = cli("attention --qkv " + path("qkv") +
                      " --sigma 4 --s 4 --trials 1 --quiet --out " + path("f.csv"));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(CsvTable::read(path("f.csv")).number(0, "n"), 120);

  const std::string base = "attention --sigma 4 --s 4 --quiet --out " + path("bad.csv") + " --qkv ";
  // Mismatched n between files.
  write_npy(path("qkv/v.npy"), {119, 4}, data.v.data.data(), NpyDtype::kFloat64);
  expect_usage_error(base + path("qkv"), "n = 119");
  // Truncated data.
  write_npy(path("qkv/v.npy"), {120, 4}, data.v.data.data(), NpyDtype::kFloat64);
  std::filesystem::resize_file(path("qkv/v.npy"),
                               std::filesystem::file_size(path("qkv/v.npy")) - 8);
  expect_usage_error(base + path("qkv"), "truncated data");
  // Bad magic.
  { std::ofstream(path("qkv/v.npy")) << "not numpy at all"; }
  expect_usage_error(base + path("qkv"), "bad magic");
  // Missing directory.
  expect_usage_error(base + path("nowhere"), "neither 'synthetic' nor a directory");
  EXPECT_FALSE(std::filesystem::exists(path("bad.csv")));
}

TEST_F(AttentionCli, RejectsBadOptions) {
  const std::string out = " --quiet --out " + path("x.csv");
  expect_usage_error("attention --n 64 --s 4" + out, "--sigma");
  expect_usage_error("attention --n 64 --sigma 4 --alibi-heads 2" + out, "exclusive");
  expect_usage_error("attention --n 64 --sigma 4 --independent-heads" + out, "--independent-heads");
  expect_usage_error("attention --n 64 --independent-heads" + out, "--independent-heads");
  expect_usage_error("attention --n 64 --sigma 4 --estimator lsh,exact" + out, "--estimator");
  expect_usage_error("attention --n 64 --sigma -1" + out, "--sigma");
  expect_usage_error("attention --n 0 --sigma 4" + out, "--n");
  expect_usage_error("attention --n 64 --sigma 4 --s 0" + out, "--s");
}

TEST_F(AttentionCli, BandEstimatorIsWithinItsCertificateAndRecordsItsTolerance) {
  const std::string out = path("band.csv");
  const auto r =
      cli("attention --n 700 --d 8 --sigma 3 --s 4 --trials 1 --seed 2 --causal "
          "--estimator band,lsh --band-tol 1e-9 --quiet --out " +
          out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CsvTable t = CsvTable::read(out);
  int band_rows = 0;
  for (std::size_t row = 0; row < t.size(); ++row) {
    if (t.text(row, "estimator") != "band") continue;
    ++band_rows;
    EXPECT_LE(t.number(row, "max_error"),
              t.number(row, "certificate") + t.number(row, "rounding_allowance"));
    EXPECT_GT(t.number(row, "certificate"), 0);       // keys were left out
    EXPECT_LT(t.number(row, "keys_per_query"), 350);  // fewer than causal exact's (n + 1) / 2
    EXPECT_GE(t.number(row, "width"), 1);
    EXPECT_TRUE(t.text(row, "s").empty() && t.text(row, "trial").empty() &&
                t.text(row, "largest_block").empty());
  }
  EXPECT_EQ(band_rows, 1);
  const auto c = cli("check " + out);
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  // The tolerance is recorded when band runs, and only then.
  EXPECT_NE(testing::slurp(out + ".meta.json").find("band-tol = 1e-9"), std::string::npos);
  ASSERT_EQ(
      cli("attention --n 64 --d 4 --sigma 3 --s 2 --trials 1 --quiet --out " + path("noband.csv"))
          .exit_code,
      0);
  EXPECT_EQ(testing::slurp(path("noband.csv") + ".meta.json").find("band-tol"), std::string::npos);
  expect_usage_error(
      "attention --n 64 --sigma 4 --estimator band --band-tol 1 --out " + path("x.csv"),
      "--band-tol");
}

// The band-exact reference against the dense one on the same run: every
// error and bound of the table moves by at most the reference's certificate
// (reference_bound, recorded per row; 0 with the dense reference), the checks
// pass, and attention-length is the same experiment under its own name.
TEST_F(AttentionCli, BandReferenceAgreesWithTheDenseOneWithinItsBound) {
  const std::string common =
      "--n 300,700 --d 8 --sigma 3 --s 2,8 --trials 3 --seed 4 --estimator lsh,fixed,window "
      "--no-timing --quiet --out ";
  ASSERT_EQ(cli("attention " + common + path("dense.csv")).exit_code, 0);
  const auto r = cli("attention --reference band --reference-tol 1e-12 " + common + path("b.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CsvTable dense = CsvTable::read(path("dense.csv")), band = CsvTable::read(path("b.csv"));
  ASSERT_EQ(dense.size(), band.size());
  double largest_bound = 0;
  for (std::size_t row = 0; row < dense.size(); ++row) {
    ASSERT_EQ(dense.text(row, "estimator"), band.text(row, "estimator"));
    EXPECT_EQ(dense.number(row, "reference_bound"), 0.0);
    const double rb = band.number(row, "reference_bound");
    largest_bound = std::max(largest_bound, rb);
    EXPECT_LE(rb, 1e-10);
    EXPECT_LE(std::abs(band.number(row, "max_error") - dense.number(row, "max_error")), rb + 1e-15)
        << "row " << row;
    // The certificate with the band's row sums (and their slack) is still a bound.
    EXPECT_GE(band.number(row, "certificate") + 1e-12, dense.number(row, "certificate"))
        << "row " << row;
  }
  EXPECT_GT(largest_bound, 0) << "the band reference left nothing out: the test proves nothing";
  EXPECT_EQ(cli("check " + path("b.csv")).exit_code, 0);
  // attention-length: the same table as attention with the same options.
  ASSERT_EQ(cli("attention-length --reference band --reference-tol 1e-12 " + common + path("l.csv"))
                .exit_code,
            0);
  EXPECT_EQ(testing::slurp(path("l.csv")), testing::slurp(path("b.csv")));
  EXPECT_NE(testing::slurp(path("l.csv") + ".meta.json").find("attention-length"),
            std::string::npos);
  const std::string out = " --out " + path("x.csv");
  expect_usage_error("attention --n 64 --sigma 4 --reference exact" + out, "--reference");
  expect_usage_error("attention --n 64 --sigma 4 --reference band --reference-tol 0" + out,
                     "--reference-tol");
  expect_usage_error("attention-length --n 64 --sigma 4 --alibi-heads 2" + out, "exclusive");
}

TEST_F(AttentionCli, SaveOutputsWritesEveryTensorTheTableMeasured) {
  const std::string out = path("o.csv"), dir = path("outputs");
  const auto r =
      cli("attention --n 200 --d 4 --sigma 3 --s 2,8 --trials 2 --seed 4 "
          "--estimator lsh,fixed,window,band --quiet --save-outputs " +
          dir + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CsvTable t = CsvTable::read(out);
  const HeadStack<double> exact = read_head_stack_npy(dir + "/n200_d4_head0_exact.npy");
  ASSERT_EQ(exact.n(), 200);
  ASSERT_EQ(exact.d(), 4);
  std::size_t checked = 0;
  for (std::size_t row = 0; row < t.size(); ++row) {
    const std::string est = t.text(row, "estimator");
    const std::string name = t.text(row, "s").empty()
                                 ? est
                                 : est + "_s" + t.text(row, "s") + "_trial" + t.text(row, "trial");
    const HeadStack<double> approx = read_head_stack_npy(dir + "/n200_d4_head0_" + name + ".npy");
    // The table's max_error is the saved tensors' difference, bit for bit.
    EXPECT_EQ((approx.data - exact.data).cwiseAbs().maxCoeff(), t.number(row, "max_error")) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 1u + 1 + 2 * 2 * 2);  // fixed, band, (lsh + window) x 2 s x 2 trials
  for (const auto& f : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(f.path().extension(), ".npy") << f.path();  // no .partial left behind
  // Where outputs go is not part of the run: the recorded config omits it.
  EXPECT_EQ(testing::slurp(out + ".meta.json").find("save-outputs"), std::string::npos);
  std::ofstream(path("file")) << "x";
  expect_usage_error(
      "attention --n 64 --sigma 4 --save-outputs " + path("file") + " --out " + path("y.csv"),
      "--save-outputs");
}

TEST_F(AttentionCli, BenchWritesTimesAndErrors) {
  const auto r =
      cli("bench attention --n 512,1024 --d 16 --s 2 --sigma 4 --repeats 1 --reference-rows 64 "
          "--threads 1 --out " +
          path("b.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CsvTable t = CsvTable::read(path("b.csv"));
  ASSERT_EQ(t.size(), 8u);  // exact, band, lsh, window at 2 n
  int band_rows = 0;
  for (std::size_t row = 0; row < t.size(); ++row) {
    EXPECT_GT(t.number(row, "seconds"), 0);
    const std::string method = t.text(row, "method");
    if (method == "exact") {
      EXPECT_LT(t.number(row, "max_error"), 1e-4);
    }
    EXPECT_EQ(t.text(row, "certificate").empty(), method != "band") << method;
    EXPECT_EQ(t.text(row, "error_over_certificate").empty(), method != "band") << method;
    if (method == "band") {
      ++band_rows;
      // float32 band-exact: float32 rounding above a certificate of ~2^-24 of the reach.
      EXPECT_LT(t.number(row, "max_error"), 1e-4);
      EXPECT_LT(t.number(row, "certificate"), 1e-5);
      EXPECT_LT(t.number(row, "keys_per_query"), t.number(row, "n"));
      // In float64 the error is below each sampled row's own certificate.
      EXPECT_LE(t.number(row, "error_over_certificate"), 1.0);
    }
  }
  EXPECT_EQ(band_rows, 2);
  EXPECT_NE(r.out.find("slope of log time vs log n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace poslsh
