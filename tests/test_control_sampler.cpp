// The control arm of the attention error-law lines (experiments/oracles/control_sampler.h):
// if its hash law were wrong, a sound sampler would FAIL those lines, so it
// passes the same exact co-binning tests as the sampler under test, keeps
// draw_hashes' structure (prefixes in s, pitches that scale with sigma), and a
// wrong control (pitch x 1.05) fails them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "experiments/oracles/control_sampler.h"
#include "experiments/unbiasedness/unbiasedness.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"

namespace poslsh {
namespace {

// Independent control hashes, one per trial index (so drawing hash k costs
// O(1)), as a HashDrawer for the co-binning rows; `scale` multiplies pitch
// and shift (1: the control sampler itself).
HashDrawer control_drawer(double scale) {
  return [scale](std::uint64_t trial, std::uint64_t k, double sigma) {
    PositionalHash h = control_hashes(77, (k << 1) | trial, 1, sigma)[0];
    return PositionalHash{h.pitch * scale, h.shift * scale};
  };
}

std::vector<CheckOutcome> cobinning(double scale) {
  std::string text = csv_line(unbiasedness_columns());
  for (const double sigma : {2.0, 8.0})
    for (const auto& r : unbiasedness_cell_rows(4096, sigma, 1 << 16, 16, 12, control_drawer(scale)))
      text += csv_line(r);
  return check_unbiasedness_table(CsvTable::parse(text));
}

int failures(const std::vector<CheckOutcome>& out, std::string* first) {
  int n = 0;
  for (const auto& o : out)
    if (o.verdict == Verdict::kFail && n++ == 0) *first = o.check + ": " + o.detail;
  return n;
}

// 2^16 control hashes at sigma = 2 and 8, checked at alpha = 1e-3: a fresh
// seed would fail with probability <= 1e-3.
TEST(ControlSampler, PassesTheExactCobinningTestsAndAScaledOneFails) {
  std::string first;
  EXPECT_EQ(failures(cobinning(1.0), &first), 0) << first;
  EXPECT_GT(failures(cobinning(1.05), &first), 0);
}

TEST(ControlSampler, PrefixesInSAndPitchesScaleWithSigma) {
  const auto a = control_hashes(5, 3, 8, 4.0), b = control_hashes(5, 3, 16, 4.0);
  const auto c = control_hashes(5, 3, 8, 12.0), other = control_hashes(5, 4, 8, 4.0);
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].pitch, b[k].pitch);
    EXPECT_EQ(a[k].shift, b[k].shift);
    EXPECT_NEAR(c[k].pitch, 3 * a[k].pitch, 1e-12 * c[k].pitch);
    EXPECT_GE(a[k].shift, 0.0);
    EXPECT_LT(a[k].shift, a[k].pitch);
    EXPECT_NE(a[k].pitch, other[k].pitch);  // trials differ
  }
}

}  // namespace
}  // namespace poslsh
