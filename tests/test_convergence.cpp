// `poslsh convergence` end to end (the checks' power and calibration are
// tested in test_convergence_checks.cpp).
#include <gtest/gtest.h>
#include <poslsh/alibi_heads.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "cli_harness.h"
#include "experiments/convergence/convergence.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"

namespace poslsh {
namespace {

using ConvergenceCli = testing::CliTest;

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
  // Tests: max, b_max + (2 sigmas + pooled) x 2 rates + 2 trials-distinct;
  // info: spectral bound, 2 constants; n/a: the not-converged count and the
  // spectral interval tally.
  EXPECT_NE(r.out.find("checks: 10 passed, 0 failed, 2 not applicable, 3 info"), std::string::npos)
      << r.out;
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

// One cell and two threads: the threads go inside the row (the solver's two
// starts, the entrywise errors' two chunks), and the table is byte-identical
// to a one-thread run's.
TEST_F(ConvergenceCli, OneLargeCellUsesThreadsInsideTheRowWithTheSameBytes) {
  const std::string args =
      "convergence --n 65536 --sigma 8 --s 16 --trials 1 --seed 4 --causal "
      "--no-timing --quiet --out ";
  expect_same_table_for_1_and_2_threads(args);
  const CsvTable t = CsvTable::read(path("two.csv"));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.row(0)[t.column("status")], "ok");
}

// `bench convergence --scipy-seeds` runs scripts/bench_scipy_eigsh.py through
// --python and prints the rows of the CSV it writes (--csv). A stand-in
// interpreter writes a known row: the bench must pass the seed and size
// through and print that row's numbers and ratio; an interpreter that cannot
// run gives a line saying so, not a crash or a made-up row.
TEST_F(ConvergenceCli, BenchPrintsTheScipyBaselineRowsTheScriptWrites) {
  const std::string stub = path("fake-python");
  {
    std::ofstream f(stub);
    f << "#!/bin/sh\n"
         "case \"$1\" in *bench_scipy_eigsh.py) ;; *) exit 9 ;; esac\n"
         "seed=; n=; out=\n"
         "while [ $# -gt 0 ]; do case \"$1\" in --csv) out=$2 ;; --seed) seed=$2 ;; "
         "--n) n=$2 ;; esac; shift; done\n"
         "[ \"$seed\" = 5 ] && [ \"$n\" = 4096 ] || exit 8\n"
         "printf 'trial,eigsh_seconds,eigsh_matvecs,poslsh_row_seconds,ratio,eigsh_value,"
         "poslsh_value\\n0,50.0,9000,2.0,25.000,4.5,4.5000000001\\n' > \"$out\"\n";
  }
  std::filesystem::permissions(stub, std::filesystem::perms::owner_all);
  const std::string small =
      "bench convergence --n-large 2048 --n-row 512 --n-dense 64 --no-spectra --s 4 --sigma 4 ";
  auto r = cli(small + "--scipy-seeds 5 --scipy-n 4096 --python " + stub);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("25.0x"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("9000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2.22e-11"), std::string::npos) << r.out;       // |4.5 - 4.5000000001| / 4.5
  r = cli(small + "--scipy-seeds 6 --scipy-n 4096 --python " + stub);  // the stub refuses seed 6
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("failed (exit 8)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("25.0x"), std::string::npos) << r.out;
  r = cli(small + "--scipy-seeds 5 --python " + path("no-such-python"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("failed (exit 127)"), std::string::npos) << r.out;
  // The stand-in writes the columns the bench reads; the real script must
  // write them too (it needs scipy, which the tests do not: read its text).
  const std::string script =
      testing::slurp(std::string(POSLSH_SOURCE_DIR) + "/scripts/bench_scipy_eigsh.py");
  for (const char* column : {"\"eigsh_seconds\"", "\"eigsh_matvecs\"", "\"poslsh_row_seconds\"",
                             "\"ratio\"", "\"eigsh_value\"", "\"poslsh_value\""})
    EXPECT_NE(script.find(column), std::string::npos) << column;
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

// Every row but `seconds` of a table whose head h draws from seed_of(h).
void expect_rows_from_head_seeds(const CsvTable& t, int heads, std::int64_t n, std::int64_t s,
                                 std::uint64_t trials,
                                 const std::function<std::uint64_t(std::size_t)>& seed_of) {
  const auto sigmas = alibi_head_sigmas(heads);
  ASSERT_EQ(t.size(), sigmas.size() * trials);
  const auto& cols = convergence_columns();
  for (std::size_t h = 0; h < sigmas.size(); ++h)
    for (std::uint64_t trial = 0; trial < trials; ++trial) {
      ConvergenceSettings settings;
      settings.seed = seed_of(h);
      const CsvRow row = convergence_row(n, sigmas[h], trial,
                                         draw_hashes(settings.seed, trial, s, sigmas[h]), settings);
      const std::size_t r = h * trials + trial;
      for (std::size_t c = 0; c + 1 < cols.size(); ++c)
        EXPECT_EQ(t.row(r)[c], row[c]) << "head " << h << " trial " << trial << " " << cols[c];
    }
}

TEST_F(ConvergenceCli, HeadsShareRandomNumbersUnlessIndependentHeads) {
  const std::string args =
      "convergence --n 96 --alibi-heads 3 --s 5 --trials 2 --seed 4 --no-timing --quiet ";
  run_shared_and_independent_heads(args);
  if (HasFatalFailure()) return;
  // Default: every head draws from --seed (one draw, rescaled by sigma_h).
  expect_rows_from_head_seeds(CsvTable::read(path("shared.csv")), 3, 96, 5, 2,
                              [](std::size_t) { return std::uint64_t{4}; });
  // --independent-heads: head h's hashes and Lanczos starts come from its own seed.
  expect_rows_from_head_seeds(CsvTable::read(path("one.csv")), 3, 96, 5, 2,
                              [](std::size_t h) { return independent_head_seed(4, h); });
  // The flag is recorded only when given, so configs of shared runs are unchanged.
  EXPECT_NE(testing::slurp(path("one.csv.meta.json")).find("independent-heads = true"),
            std::string::npos);
  EXPECT_EQ(testing::slurp(path("shared.csv.meta.json")).find("independent-heads"),
            std::string::npos);
  // 3 heads is not a power of 2: the config says which rule made the scales.
  EXPECT_NE(testing::slurp(path("shared.csv.meta.json")).find("get_slopes(3)"), std::string::npos);
  // --help says that heads share their random numbers.
  const auto help = cli("convergence --help");
  EXPECT_NE(help.out.find("share one draw of random numbers"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("unless --independent-heads is given"), std::string::npos) << help.out;
}

TEST_F(ConvergenceCli, BadInputIsAUsageError) {
  const std::string out = " --quiet --out " + path("x.csv");
  expect_usage_error("convergence --alibi-heads 4 --sigma 8" + out, "--alibi-heads");
  expect_usage_error("convergence --independent-heads" + out, "--independent-heads");
  expect_usage_error("convergence --sigma 8 --independent-heads" + out, "--independent-heads");
  expect_usage_error("convergence --alibi-heads 0 --independent-heads" + out,
                     "--independent-heads");
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

// poslsh.spectral_error and poslsh.max_error compute one part of a row each
// (convergence_errors with ConvergenceParts): each part alone must be the
// row's bits, and the part left out must not be computed.
TEST(ConvergenceErrors, EachPartAloneIsTheRowsBits) {
  for (const Form form : {Form::kSymmetric, Form::kCausal}) {
    const std::int64_t n = 2000;
    const double sigma = 6;
    const auto hashes = draw_hashes(7, 1, 8, sigma);
    ConvergenceSettings settings;
    settings.form = form;
    settings.seed = 7;
    settings.threads = 2;
    const ConvergenceErrors both = convergence_errors(n, sigma, 1, hashes, settings);
    ASSERT_EQ(both.spectral.status, SolveStatus::kOk);
    const ConvergenceErrors spectral =
        convergence_errors(n, sigma, 1, hashes, settings, {.spectral = true, .entrywise = false});
    const ConvergenceErrors entrywise =
        convergence_errors(n, sigma, 1, hashes, settings, {.spectral = false, .entrywise = true});
    const CsvRow row = convergence_row(n, sigma, 1, hashes, settings);
    const auto& cols = convergence_columns();
    const auto cell = [&](const char* name) {
      return row[static_cast<std::size_t>(std::find(cols.begin(), cols.end(), name) -
                                          cols.begin())];
    };
    for (const SpectralErrorResult* r : {&both.spectral, &spectral.spectral}) {
      EXPECT_EQ(format_value(r->value), cell("spectral_error"));
      EXPECT_EQ(format_value(r->lower), cell("spectral_lower"));
      EXPECT_EQ(format_value(r->upper), cell("spectral_upper"));
      EXPECT_EQ(format_value(r->accuracy), cell("spectral_accuracy"));
      EXPECT_EQ(std::to_string(r->iterations), cell("lanczos_iterations"));
      EXPECT_EQ(std::to_string(r->matvecs), cell("lanczos_matvecs"));
    }
    for (const EntrywiseError* e : {&both.entrywise, &entrywise.entrywise}) {
      EXPECT_EQ(format_value(e->max_error), cell("max_error"));
      EXPECT_EQ(format_value(e->inf_error), cell("inf_error"));
      EXPECT_EQ(std::to_string(e->largest_block), cell("b_max"));
    }
    // The parts left out stay as constructed: nothing was computed for them.
    EXPECT_EQ(spectral.entrywise.largest_block, 0);
    EXPECT_EQ(entrywise.spectral.iterations, 0);
  }
}

}  // namespace
}  // namespace poslsh
