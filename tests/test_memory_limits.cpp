// Runs whose working set would not fit are refused before anything is
// computed or written (exit 2, the estimate and the limit in one line), and
// the estimates track what a run really uses.
#include <gtest/gtest.h>
#include <poslsh/positional_hash.h>
#include <poslsh/spectral_error.h>
#include <sys/resource.h>

#include <filesystem>

#include "cli_harness.h"
#include "experiments/convergence/convergence.h"

namespace poslsh {
namespace {

using MemoryLimits = testing::CliTest;
namespace fs = std::filesystem;

TEST_F(MemoryLimits, ConvergenceOverTheLimitIsRefusedUpFront) {
  const auto r = cli("convergence --n 4000000 --sigma 1 --s 64 --trials 1 --max-memory 0.1 --out " +
                     path("c.csv"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs about"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--max-memory 0.1 GiB"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_FALSE(fs::exists(path("c.csv")));
  EXPECT_FALSE(fs::exists(path("c.csv.partial")));
  EXPECT_FALSE(fs::exists(path("c.csv.meta.json")));
  // The machine's memory is the default limit: 2^31 positions at sigma 1 and
  // s = 64 need terabytes.
  const auto big =
      cli("convergence --n 2147483648 --sigma 1 --s 64 --trials 1 --out " + path("d.csv"));
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_NE(big.err.find("this machine's memory"), std::string::npos) << big.err;
  // A generous override lets a small run through.
  EXPECT_EQ(cli("convergence --n 256 --sigma 4 --s 4 --trials 1 --quiet --max-memory 1 --out " +
                path("e.csv"))
                .exit_code,
            0);
  EXPECT_EQ(cli("convergence --n 256 --max-memory -1 --out " + path("f.csv")).exit_code, 2);
}

TEST_F(MemoryLimits, AttentionOverTheLimitIsRefusedBeforeGeneratingData) {
  // 2^24 x 64 float64 Q, K, V alone are 24 GiB: refused at once, not after
  // generating them.
  const auto r = cli("attention --n 16777216 --sigma 16 --max-memory 4 --out " + path("a.csv"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs about"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("a.csv")));
}

TEST(MemoryEstimate, ConvergenceEstimateCoversTheMeasuredGrowth) {
  // The estimate must cover what a row adds to the peak RSS (measured here as
  // the growth of ru_maxrss over a fresh, larger row than any before it).
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine inflate the RSS";
#endif
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const std::int64_t n = 1 << 21;
  const auto hashes = draw_hashes(1, 0, 16, 4.0);
  ConvergenceSettings settings;
  settings.max_lanczos = 20;  // the buffers are allocated at the first step
  convergence_row(n, 4.0, 0, hashes, settings);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  const double grown = 1024.0 * static_cast<double>(after.ru_maxrss - before.ru_maxrss);
  const double estimate = convergence_memory_bytes(n, 4.0, 16, settings);
  EXPECT_GE(estimate, grown);
  EXPECT_LE(estimate, 4 * grown + 64.0 * 1024 * 1024);  // and is not wildly pessimistic
}

}  // namespace
}  // namespace poslsh
