// `poslsh frontier` (experiments/frontier/): every row against a dense
// oracle of its own at small n (the kernel matrix, the mean of the block
// masks and the band mask built entry by entry, attention as softmax rows),
// the check's decisions on tables whose answer is known (and a table where
// LSH wins, which the ALiBi line must FAIL), and the CLI's contract.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poslsh/input_error.h>
#include <poslsh/kernel.h>
#include <poslsh/positional_hash.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_harness.h"
#include <poslsh/npy.h>
#include "experiments/attention/attention.h"
#include "experiments/frontier/frontier.h"
#include "experiments/frontier/frontier_checks.h"

namespace poslsh {
namespace {

using Dense = Eigen::MatrixXd;

// Softmax attention with multiplicative weights `mask` on e^{q·k/sqrt d}, row by row.
Dense dense_attention(const Dense& q, const Dense& k, const Dense& v, const Dense& mask) {
  const Dense logits = q * k.transpose() / std::sqrt(static_cast<double>(q.cols()));
  Dense w = mask.array() * logits.array().exp();
  for (Eigen::Index i = 0; i < w.rows(); ++i) w.row(i) /= w.row(i).sum();
  return w * v;
}

// The mean of the first s block masks: entry (i, j) counts the hashes that
// put i and j in one bin, by PositionalHash::bin, not by block starts.
Dense dense_mask_mean(const std::vector<PositionalHash>& hashes, std::int64_t s, std::int64_t n) {
  Dense m = Dense::Zero(n, n);
  for (std::int64_t h = 0; h < s; ++h)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) m(i, j) += hashes[h].bin(i) == hashes[h].bin(j);
  return m / static_cast<double>(s);
}

double rel_error(const Dense& out, const Dense& ref, const std::vector<std::int64_t>& rows) {
  double err = 0, norm = 0;
  for (const auto i : rows) {
    err += (out.row(i) - ref.row(i)).squaredNorm();
    norm += ref.row(i).squaredNorm();
  }
  return std::sqrt(err / norm);
}

void expect_rows_match_the_dense_oracle(const Kernel& kernel, double sigma) {
  FrontierSettings o;
  o.n = 48;
  o.d = 3;
  o.rows = 12;
  o.trials = 2;
  o.s = {1, 3, 8};
  o.seed = 5;
  const auto rows = frontier_cell_rows(kernel, sigma, o);
  ASSERT_EQ(rows.size(), o.s.size() * 2 * static_cast<std::size_t>(o.trials));
  const auto queries = frontier_queries(o.n, o.rows);
  std::size_t r = 0;
  for (std::int64_t t = 0; t < o.trials; ++t) {
    const QkvData data = synthetic_qkv(frontier_qkv_seed(o.seed, t), o.n, o.d, o.qk_scale);
    const Dense q = data.q.data, k = data.k.data, v = data.v.data;
    Dense kmat(o.n, o.n);
    for (std::int64_t i = 0; i < o.n; ++i)
      for (std::int64_t j = 0; j < o.n; ++j) kmat(i, j) = kernel(std::abs(i - j));
    const Dense exact = dense_attention(q, k, v, kmat);
    const auto hashes = draw_kernel_hashes(kernel, o.seed, static_cast<std::uint64_t>(t), 8);
    for (const auto s : o.s) {
      const Dense m = dense_mask_mean(hashes, s, o.n);
      const double kpq = m.sum() * static_cast<double>(s) / static_cast<double>(o.n);
      const auto w = std::min<std::int64_t>(static_cast<std::int64_t>(std::floor((kpq - 1) / 2)), o.n - 1);
      Dense band = kmat;
      for (std::int64_t i = 0; i < o.n; ++i)
        for (std::int64_t j = 0; j < o.n; ++j)
          if (std::abs(i - j) > w) band(i, j) = 0;
      const auto& lsh = rows[r++];
      const auto& window = rows[r++];
      ASSERT_EQ(lsh[7], "lsh");
      ASSERT_EQ(window[7], "window");
      EXPECT_EQ(std::stoll(lsh[8]), s);
      EXPECT_NEAR(std::stod(lsh[10]), kpq, 1e-9 * kpq);
      EXPECT_EQ(std::stoll(window[9]), w);
      EXPECT_NEAR(std::stod(lsh[11]), rel_error(dense_attention(q, k, v, m), exact, queries),
                  1e-10);
      EXPECT_NEAR(std::stod(window[11]), rel_error(dense_attention(q, k, v, band), exact, queries),
                  1e-10);
    }
  }
}

TEST(Frontier, RowsMatchADenseOracleForEveryFamily) {
  expect_rows_match_the_dense_oracle(Kernel::laplace(4), 4);
  expect_rows_match_the_dense_oracle(Kernel::power_law(2, 1.5), 2);
  expect_rows_match_the_dense_oracle(Kernel::stretched_exponential(3, 0.5), 3);
  expect_rows_match_the_dense_oracle(Kernel::triangle(6), 6);
  expect_rows_match_the_dense_oracle(Kernel::tabulated({1, 0.6, 0.3, 0.1, 0.05}), 1);
}

// A frontier table of one panel whose errors are given per (trial, s).
CsvTable panel_table(const std::string& kernel, std::int64_t trials, double lsh_err,
                     double window_err) {
  std::string text =
      "kernel,sigma,n,d,head,rows,trial,method,s,half_width,keys_per_query,rel_error,max_error\n";
  for (std::int64_t t = 0; t < trials; ++t)
    for (const int s : {1, 4}) {
      // The trial shifts both errors alike: the sign of each pair is the same.
      const double shift = 1e-3 * static_cast<double>(t);
      text += fmt::format("{},8,4096,16,0,128,{},lsh,{},,{},{},1\n", kernel, t, s, 12 * s,
                          lsh_err / s + shift);
      text += fmt::format("{},8,4096,16,0,128,{},window,{},{},{},{},1\n", kernel, t, s, 6 * s - 1,
                          12 * s - 1, window_err / s + shift);
    }
  return CsvTable::parse(text);
}

TEST(FrontierChecks, AlibiPassesWhereTheWindowWinsAndFailsWhereLshWins) {
  const auto pass = check_frontier_table(panel_table("laplace", 20, 0.5, 0.01), 1e-3);
  ASSERT_EQ(pass.size(), 1u);
  EXPECT_EQ(pass[0].verdict, Verdict::kPass) << pass[0].detail;
  EXPECT_NE(pass[0].detail.find("window wins at s = 1,4"), std::string::npos) << pass[0].detail;
  // The negative control: a table where LSH is the more accurate.
  const auto fail = check_frontier_table(panel_table("laplace", 20, 0.01, 0.5), 1e-3);
  EXPECT_EQ(fail[0].verdict, Verdict::kFail) << fail[0].detail;
  EXPECT_NE(fail[0].detail.find("LSH wins at s = 1,4"), std::string::npos) << fail[0].detail;
}

TEST(FrontierChecks, TooFewTrialsCannotDecideAndSayHowMany) {
  const auto few = check_frontier_table(panel_table("laplace", 5, 0.5, 0.01), 1e-3);
  EXPECT_EQ(few[0].verdict, Verdict::kInfo);
  EXPECT_NE(few[0].detail.find("undecided at s = 1,4"), std::string::npos) << few[0].detail;
  EXPECT_NE(few[0].remedy.find("--trials >="), std::string::npos);
}

TEST(FrontierChecks, OtherKernelsReportTheMeasuredAnswer) {
  const auto lsh = check_frontier_table(panel_table("power-law:0.5", 20, 0.01, 0.5), 1e-3);
  EXPECT_EQ(lsh[0].verdict, Verdict::kInfo);
  EXPECT_NE(lsh[0].check.find("kernel=power-law:0.5"), std::string::npos);
  EXPECT_NE(lsh[0].detail.find("LSH wins at s = 1,4"), std::string::npos) << lsh[0].detail;
  EXPECT_TRUE(lsh[0].remedy.empty());
}

TEST(FrontierChecks, AMalformedTableIsRefused) {
  EXPECT_THROW(check_frontier_table(CsvTable::parse("kernel,sigma,n,d,head,rows,trial,method,s,"
                                                    "half_width,keys_per_query,rel_error,max_error\n"
                                                    "laplace,8,64,4,0,4,0,band,1,,3,0.1,1\n"),
                                    1e-3),
               InputError);
}

namespace fs = std::filesystem;

class FrontierCli : public testing::CliTest {};

TEST_F(FrontierCli, AlibiRunPassesItsCheckAndIsTheSameForAnyThreadCount) {
  const std::string args =
      "frontier --kernel laplace,power-law:1.5 --sigma 4 --n 256 --d 4 --rows 16 --s 4,16 "
      "--trials 18 --seed 3 --no-timing --quiet --out ";
  expect_same_table_for_1_and_2_threads(args);
  const auto r = cli("check " + path("one.csv"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS  frontier[kernel=laplace,sigma=4,n=256]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("frontier[kernel=power-law:1.5,sigma=4,n=256]"), std::string::npos) << r.out;
}

// Q, K, V from files measure what the synthetic run measures on the same
// data: a file holding trial 0's synthetic Q, K, V gives trial 0's rows.
TEST_F(FrontierCli, QkvFilesAreMeasuredAsTheSyntheticDataTheyHold) {
  const QkvData data = synthetic_qkv(frontier_qkv_seed(3, 0), 96, 4, 1.0);
  fs::create_directories(path("qkv"));
  write_npy(path("qkv/q.npy"), {96, 4}, data.q.data.data(), NpyDtype::kFloat64);
  write_npy(path("qkv/k.npy"), {96, 4}, data.k.data.data(), NpyDtype::kFloat64);
  write_npy(path("qkv/v.npy"), {96, 4}, data.v.data.data(), NpyDtype::kFloat64);
  const std::string common = "frontier --kernel laplace,triangle --sigma 4 --s 2,8 --rows 16 --trials 1 "
                             "--seed 3 --no-timing --quiet ";
  ASSERT_EQ(cli(common + "--n 96 --d 4 --out " + path("synthetic.csv")).exit_code, 0);
  const auto r = cli(common + "--qkv " + path("qkv") + " --out " + path("files.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto body = [](const std::string& text) { return text.substr(text.find('\n')); };
  EXPECT_EQ(body(testing::slurp(path("files.csv"))), body(testing::slurp(path("synthetic.csv"))));
  expect_usage_error(common + "--qkv " + path("qkv") + " --n 96 --out " + path("x.csv"), "--n");
  expect_usage_error(common + "--qkv " + path("none") + " --out " + path("x.csv"), "none");
  EXPECT_FALSE(fs::exists(path("x.csv")));
}

TEST_F(FrontierCli, BadInputIsOneLineAndNoFile) {
  const std::string out = " --out " + path("x.csv");
  expect_usage_error("frontier --s 4,1" + out, "--s");
  expect_usage_error("frontier --s 0" + out, "--s");
  expect_usage_error("frontier --n 1" + out, "--n");
  expect_usage_error("frontier --sigma -1" + out, "--sigma");
  expect_usage_error("frontier --kernel gaussian" + out, "--kernel");
  expect_usage_error("frontier --rows 0" + out, "--rows");
  expect_usage_error("frontier --qk-scale nan" + out, "--qk-scale");
  EXPECT_FALSE(std::filesystem::exists(path("x.csv")));
}

}  // namespace
}  // namespace poslsh
