// The rate tests' regime: with nested hashes a trial's error moves only when a
// hash puts a block boundary in [0, n), so where the smallest s expects fewer
// than two boundaries (n = 16, sigma = 256: s n / (2 sigma) = 0.03) a sound
// sampler's trials are flat and their slope 0 would FAIL the -1/2 band. Those
// lines are n/a; where boundaries abound the same command decides (control).
#include <gtest/gtest.h>

#include "cli_harness.h"
#include "experiments/checks/rate_interval.h"

namespace poslsh {
namespace {

class RateRegimeCli : public testing::CliTest {
 protected:
  std::string rate_line(const std::string& attention_args) const {
    const std::string csv = path("a.csv");
    EXPECT_EQ(
        cli("attention " + attention_args + " --causal --trials 4 --quiet --out " + csv).exit_code,
        0);
    const auto r = cli("check " + csv);
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
      if (line.find("rate[") != std::string::npos) return line;
    return "";
  }
};

TEST(RateRegime, ExpectedBoundaries) {
  EXPECT_DOUBLE_EQ(rate_expected_boundaries(1, 16, 256), 16.0 / 512);
  EXPECT_DOUBLE_EQ(rate_expected_boundaries(4, 1024, 8), 256);
}

TEST_F(RateRegimeCli, AttentionRateIsNotApplicableWithoutBoundariesAndDecidedWithThem) {
  const std::string flat = rate_line("--n 16 --sigma 256 --s 1,4 --d 4");
  EXPECT_EQ(flat.rfind("n/a", 0), 0u) << flat;
  EXPECT_NE(flat.find("block boundaries"), std::string::npos) << flat;
  const std::string decided = rate_line("--n 512 --sigma 4 --s 1,4,16,64 --d 4");
  EXPECT_EQ(decided.rfind("n/a", 0), std::string::npos) << decided;
}

}  // namespace
}  // namespace poslsh
