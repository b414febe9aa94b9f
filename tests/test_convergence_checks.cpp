// The checks of `poslsh check` on convergence tables: each one passes a table
// from the sound sampler and fails a table it is meant to catch; unusable
// tables (edited bound columns, NaN cells, bad status, duplicated columns)
// throw std::invalid_argument.
//
// False alarms: every table here is built from fixed seeds, so each assertion
// is deterministic. The sound tables are checked at the family-wise rate
// alpha = 1e-3 (kCheckFamilyAlpha): a fresh seed would make any sound-table
// assertion here fail with probability <= 1e-3 (every threshold is an exact
// tail; the rate test is the sign test of experiments/checks/rate_interval.h).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poslsh/bounds.h>
#include <poslsh/error_operator.h>
#include <poslsh/max_error.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "convergence_rows.h"
#include "experiments/defects/sampler_defect.h"
#include "experiments/convergence/convergence.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"

namespace poslsh {
namespace {

using testing::convergence_column;
using testing::kConvergenceS;
using testing::power_law_convergence_table;
using testing::synthetic_convergence_row;

constexpr std::int64_t kChecksN = 512;

// n = 512, sigma in {4, 16}, s in kConvergenceS, `trials` trials, hashes from the
// sampler with `defect`; errors optionally multiplied by s^scale_exponent.
CsvTable sampler_table(SamplerDefect defect, int trials, double scale_exponent = 0) {
  std::string text = csv_line(convergence_columns());
  ConvergenceSettings settings;
  settings.seed = 5;
  for (double sigma : {4.0, 16.0}) {
    for (std::int64_t s : kConvergenceS) {
      for (int t = 0; t < trials; ++t) {
        std::vector<PositionalHash> hashes;
        for (std::int64_t k = 0; k < s; ++k)
          hashes.push_back(draw_hash(5, t, static_cast<std::uint64_t>(k), sigma, defect));
        CsvRow row = convergence_row(kChecksN, sigma, t, hashes, settings);
        if (scale_exponent != 0) {
          const double f = std::pow(static_cast<double>(s), scale_exponent);
          // A wrong implementation writes a consistent interval with its error.
          for (const char* c : {"spectral_error", "spectral_lower", "spectral_upper", "max_error"})
            row[convergence_column(c)] = format_value(std::stod(row[convergence_column(c)]) * f);
        }
        text += csv_line(row);
      }
    }
  }
  return CsvTable::parse(text);
}

// 20 trials: enough for the per-group rate lines at their level (2^-16 <=
// 1e-3 / 8 / 4 / 2).
const CsvTable& sound_table() {
  static const CsvTable t = sampler_table(SamplerDefect::kNone, 20);
  return t;
}

const CheckOutcome& find(const std::vector<CheckOutcome>& out, const std::string& check) {
  for (const auto& o : out)
    if (o.check == check) return o;
  static const CheckOutcome none{"<missing>", Verdict::kNotApplicable, ""};
  ADD_FAILURE() << "no check named " << check;
  return none;
}

int count(const std::vector<CheckOutcome>& out, Verdict v, const std::string& prefix = "") {
  int c = 0;
  for (const auto& o : out) c += o.verdict == v && o.check.rfind(prefix, 0) == 0;
  return c;
}

// The number printed after `key` in a detail line.
double number_after(const std::string& detail, const std::string& key) {
  const auto at = detail.find(key);
  EXPECT_NE(at, std::string::npos) << key << " not in " << detail;
  return at == std::string::npos ? NAN : std::stod(detail.substr(at + key.size()));
}

std::string with_cell(const CsvTable& t, std::size_t row, const std::string& c,
                      const std::string& value) {
  std::string text = csv_line(t.columns());
  for (std::size_t r = 0; r < t.size(); ++r) {
    auto fields = t.row(r);
    if (r == row) fields[t.column(c)] = value;
    text += csv_line(fields);
  }
  return text;
}

void expect_unusable(const std::string& text, const std::string& fragment) {
  try {
    check_convergence_table(CsvTable::parse(text));
    ADD_FAILURE() << "expected std::invalid_argument mentioning '" << fragment << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(ConvergenceChecks, SoundTablePassesAndLooseBoundsAreInfo) {
  const auto out = check_convergence_table(sound_table());
  for (const auto& o : out) EXPECT_NE(o.verdict, Verdict::kFail) << o.check << ": " << o.detail;
  // Tests: max, b_max + (2 groups + pooled) x 2 rates + 2 trials-distinct.
  // Info: spectral bound, 2 constants.
  EXPECT_EQ(count(out, Verdict::kPass), 10);
  EXPECT_EQ(count(out, Verdict::kPass, "trials-distinct["), 2);
  EXPECT_EQ(count(out, Verdict::kInfo), 3);
  EXPECT_EQ(find(out, "bound b_max").verdict, Verdict::kPass);
  EXPECT_EQ(find(out, "bound spectral").verdict, Verdict::kInfo);
  EXPECT_EQ(find(out, "bound max").verdict, Verdict::kPass);
  EXPECT_EQ(count(out, Verdict::kInfo, "constant["), 2);
  // The reported slack factors (3 significant digits) are the smallest
  // bound / value over the rows.
  const CsvTable& t = sound_table();
  double spectral_slack = INFINITY, max_slack = INFINITY;
  for (std::size_t r = 0; r < t.size(); ++r) {
    spectral_slack =
        std::min(spectral_slack, t.number(r, "spectral_bound") / t.number(r, "spectral_upper"));
    max_slack = std::min(max_slack, t.number(r, "max_bound") / t.number(r, "max_error"));
  }
  EXPECT_NEAR(number_after(find(out, "bound spectral").detail, "bound/value "), spectral_slack,
              5e-3 * spectral_slack);
  EXPECT_NEAR(number_after(find(out, "bound max").detail, "bound/value "), max_slack,
              5e-3 * max_slack);
  EXPECT_GT(spectral_slack, 3);
  // The rate lines state the interval, its level, the trials and the family rate.
  const std::string& rate = find(out, "rate[symmetric,n=512,sigma=4] spectral").detail;
  EXPECT_NE(rate.find("over 20 independent trials"), std::string::npos) << rate;
  EXPECT_NE(rate.find("family-wise false alarm of this table's checks <= 0.001"), std::string::npos)
      << rate;
}

// P(Binomial(m, 1/2) <= k), by exact integer counting.
double half_binomial_cdf(int m, int k) {
  double sum = 0, c = 1;  // c = C(m, i)
  for (int i = 0; i <= k; ++i) {
    sum += c;
    c = c * (m - i) / (i + 1);
  }
  return std::ldexp(sum, -m);
}

TEST(ConvergenceChecks, RateIntervalNumbersAreRight) {
  // 20 trials with slopes -0.595, -0.585, ..., -0.405 (in the band).
  std::vector<double> slopes;
  for (int j = 0; j < 20; ++j) slopes.push_back(-0.595 + 0.01 * j);
  const double alpha = 1e-3;
  const auto out = check_convergence_table(power_law_convergence_table(slopes), alpha);
  const auto& o = find(out, "rate[symmetric,n=512,sigma=4] spectral");
  EXPECT_EQ(o.verdict, Verdict::kPass) << o.detail;
  // One group: an eighth of alpha over 2 per-group rate tests (spectral, max).
  const double level = alpha / 8 / 2;
  // The interval is [b_(k), b_(21-k)] for the largest k with
  // 2 P(Bin(20, 1/2) <= k - 1) <= level: 2 P(<= 1) = 42 / 2^20 = 4.0e-5
  // passes, 2 P(<= 2) = 422 / 2^20 = 4.0e-4 does not, so k = 2.
  ASSERT_LE(2 * half_binomial_cdf(20, 1), level);
  ASSERT_GT(2 * half_binomial_cdf(20, 2), level);
  EXPECT_NEAR(number_after(o.detail, "interval ["), slopes[1], 1e-4) << o.detail;
  EXPECT_NEAR(number_after(o.detail, "interval [" + fmt::format("{:.4f}", slopes[1]) + ", "),
              slopes[18], 1e-4)
      << o.detail;
  EXPECT_NEAR(number_after(o.detail, "median "), -0.5, 1e-4) << o.detail;
  EXPECT_NE(o.detail.find("0 of 20 trials above -0.4"), std::string::npos) << o.detail;
  EXPECT_NE(o.detail.find(fmt::format("coverage >= 1 - {:.2g}", 2 * half_binomial_cdf(20, 1))),
            std::string::npos)
      << o.detail;
  EXPECT_NE(o.detail.find(fmt::format("FAIL only if a tail is <= {:.2g}", level / 2)),
            std::string::npos)
      << o.detail;
  EXPECT_EQ(count(out, Verdict::kPass, "rate[symmetric,pooled"), 0);  // one group: no pooled line
  // Three trials cannot reach level / 2 = 3.1e-5 even all on one side
  // (2^-3); 2^-15 = 3.05e-5 can.
  const auto few =
      check_convergence_table(power_law_convergence_table({-0.5, -0.45, -0.55}), alpha);
  const auto& f = find(few, "rate[symmetric,n=512,sigma=4] spectral");
  EXPECT_EQ(f.verdict, Verdict::kInfo) << f.detail;
  EXPECT_NE(f.detail.find("run more trials: needs >= 15"), std::string::npos) << f.detail;
  // [min, max] with its own coverage 1 - 2^-2.
  EXPECT_NE(f.detail.find("interval [-0.5500, -0.4500] for the median, coverage >= 1 - 0.25"),
            std::string::npos)
      << f.detail;
}

// 20 trials: slopes `centre` + spread * (j - 9.5) / 9.5.
std::vector<double> band_slopes(double centre, double spread, int trials = 20) {
  std::vector<double> out;
  for (int j = 0; j < trials; ++j)
    out.push_back(centre + spread * (j - (trials - 1) / 2.0) / ((trials - 1) / 2.0));
  return out;
}

TEST(ConvergenceChecks, RateFailsOnlyWhenTheMedianIntervalLeavesTheBand) {
  // Slopes near -0.3: every trial above the band.
  auto out = check_convergence_table(power_law_convergence_table(band_slopes(-0.3, 0.02)));
  EXPECT_EQ(count(out, Verdict::kFail, "rate"), 2);
  // Slopes near -0.7 (too fast) also fail.
  out = check_convergence_table(power_law_convergence_table(band_slopes(-0.7, 0.02)));
  EXPECT_EQ(count(out, Verdict::kFail, "rate"), 2);
  // A heavy tail does not move the verdict: trials in the band with a few
  // wild ones (slopes -3 and +2) pass; the median decides, not the mean.
  std::vector<double> wild = band_slopes(-0.5, 0.05);
  wild[0] = -3;
  wild[19] = 2;
  wild[18] = 1.5;
  out = check_convergence_table(power_law_convergence_table(wild));
  EXPECT_EQ(count(out, Verdict::kPass, "rate"), 2);
  // Median -0.3 but spread over [-0.7, 0.1]: 12 of 20 above -0.4 has tail
  // 0.25, far above the level: the test does not reject.
  out = check_convergence_table(power_law_convergence_table(band_slopes(-0.3, 0.4)));
  EXPECT_EQ(count(out, Verdict::kFail, "rate"), 0);
  EXPECT_EQ(count(out, Verdict::kPass, "rate"), 2);
  // Eight trials at -0.3: all above, but 2^-8 is above the level: info.
  out = check_convergence_table(power_law_convergence_table(band_slopes(-0.3, 0.02, 8)));
  EXPECT_EQ(count(out, Verdict::kFail, "rate"), 0);
  EXPECT_EQ(count(out, Verdict::kInfo, "rate"), 2);
  // Fewer than 3 trials: not applicable.
  out = check_convergence_table(power_law_convergence_table({-0.3, -0.31}));
  EXPECT_EQ(count(out, Verdict::kNotApplicable, "rate"), 2);
}

// A hash stream that ignores the trial index: every trial the same errors,
// a zero-width rate interval in the band that would PASS; trials-distinct
// FAILs it, and the sound table's distinct trials pass it.
TEST(ConvergenceChecks, RepeatedTrialsFailTrialsDistinct) {
  auto out = check_convergence_table(power_law_convergence_table(std::vector<double>(20, -0.5)));
  EXPECT_EQ(find(out, "rate[symmetric,n=512,sigma=4] spectral").verdict, Verdict::kPass);
  const auto& rep = find(out, "trials-distinct[symmetric,n=512,sigma=4]");
  EXPECT_EQ(rep.verdict, Verdict::kFail) << rep.detail;
  EXPECT_NE(rep.detail.find("trials 0 and 1 have identical errors at every s"), std::string::npos)
      << rep.detail;
  // One pair repeated among otherwise distinct trials is enough.
  std::vector<double> one_pair = band_slopes(-0.5, 0.05);
  one_pair[7] = one_pair[3];
  out = check_convergence_table(power_law_convergence_table(one_pair));
  EXPECT_EQ(find(out, "trials-distinct[symmetric,n=512,sigma=4]").verdict, Verdict::kFail);
  out = check_convergence_table(power_law_convergence_table(band_slopes(-0.5, 0.05)));
  EXPECT_EQ(find(out, "trials-distinct[symmetric,n=512,sigma=4]").verdict, Verdict::kPass);
  // At n = 16, sigma = 256 two sound trials often have no boundary in [0, n)
  // at all: a coincidence is no evidence, and the line says so as n/a.
  std::string text = csv_line(convergence_columns());
  for (int trial = 0; trial < 4; ++trial)
    for (std::int64_t s : kConvergenceS)
      text += csv_line(synthetic_convergence_row(16, 256, s, trial, 0.5, 0.5, 16));
  out = check_convergence_table(CsvTable::parse(text));
  const auto& flat = find(out, "trials-distinct[symmetric,n=16,sigma=256]");
  EXPECT_EQ(flat.verdict, Verdict::kNotApplicable) << flat.detail;
  EXPECT_NE(flat.detail.find("too likely to be evidence"), std::string::npos) << flat.detail;
}

// At s = 1 the mask is one hash's partition and max_error, inf_error and
// b_max are all functions of its largest block (and the blocks beside it):
// two sound trials whose largest blocks agree share all three columns, with
// a probability about that of equal b_max, far above the bound c the line
// charges per value of s. Two such trials, found among sound hashes, made the
// s = 1-only table FAIL (c(65536, 16) ~ 1e-5 made it decidable); the line
// compares s >= 2 only, so here it has no evidence and is n/a.
TEST(ConvergenceChecks, TrialsAtSOneWithEqualLargestBlocksAreNoEvidence) {
  constexpr std::int64_t n = 65536;
  constexpr double sigma = 16;
  std::map<std::int64_t, std::pair<int, EntrywiseError>> by_b_max;
  std::optional<std::pair<int, int>> pair;
  EntrywiseError first{}, second{};
  for (int t = 0; t < 200 && !pair; ++t) {
    const std::vector<PositionalHash> h = {draw_hash(5, t, 0, sigma)};
    const EntrywiseError e = entrywise_error(ErrorOperator(n, h, sigma, Form::kSymmetric));
    const auto [it, fresh] = by_b_max.try_emplace(e.largest_block, t, e);
    if (!fresh && it->second.second.max_error == e.max_error &&
        it->second.second.inf_error == e.inf_error) {
      pair = std::pair{it->second.first, t};
      first = it->second.second;
      second = e;
    }
  }
  ASSERT_TRUE(pair) << "no two of 200 sound hashes with the same s = 1 columns";
  std::string text = csv_line(convergence_columns());
  for (const auto& [trial, e] : {std::pair{0, first}, std::pair{1, second}}) {
    CsvRow row = synthetic_convergence_row(n, sigma, 1, trial, 1.0, e.max_error, e.largest_block);
    row[convergence_column("inf_error")] = format_value(e.inf_error);
    text += csv_line(row);
  }
  const auto out = check_convergence_table(CsvTable::parse(text));
  const auto& line = find(out, "trials-distinct[symmetric,n=65536,sigma=16]");
  EXPECT_EQ(line.verdict, Verdict::kNotApplicable) << line.detail;
  EXPECT_NE(line.detail.find("s >= 2 only"), std::string::npos) << line.detail;
}

TEST(ConvergenceChecks, RepeatedTrialsSamplerFailsTrialsDistinct) {
  const auto out = check_convergence_table(sampler_table(SamplerDefect::kRepeatedTrials, 8));
  EXPECT_EQ(find(out, "trials-distinct[symmetric,n=512,sigma=4]").verdict, Verdict::kFail);
  EXPECT_EQ(find(out, "trials-distinct[symmetric,n=512,sigma=16]").verdict, Verdict::kFail);
}

TEST(ConvergenceChecks, ErrorsScaledByPowerOfSFailTheRate) {
  // Sound errors times s^-0.5 (an error falling like 1/s): every trial slope
  // moves by -0.5, to about -1. At 20 trials every rate test (2 groups +
  // pooled, x 2 measures) rejects.
  const auto out = check_convergence_table(sampler_table(SamplerDefect::kNone, 20, -0.5));
  EXPECT_EQ(count(out, Verdict::kFail, "rate"), 6);
  // The constant is reported, never tested.
  EXPECT_EQ(count(out, Verdict::kFail, "constant"), 0);
  EXPECT_EQ(count(out, Verdict::kInfo, "constant["), 2);
}

TEST(ConvergenceChecks, WrongShiftsFailTheRate) {
  // Shift ~ Uniform[0, 1) instead of [0, delta): blocks start near multiples
  // of the pitch; the max-norm error does not fall at all.
  auto out = check_convergence_table(sampler_table(SamplerDefect::kUnitShift, 20));
  EXPECT_EQ(count(out, Verdict::kFail, "rate"), 6);
  EXPECT_EQ(find(out, "bound max").verdict, Verdict::kFail);
  // Shift 0: max-norm slopes ~-0.14 fail per group; the spectral slopes
  // (~-0.18, spread) fail pooled.
  out = check_convergence_table(sampler_table(SamplerDefect::kZeroShift, 20));
  EXPECT_EQ(find(out, "rate[symmetric,n=512,sigma=4] max").verdict, Verdict::kFail);
  EXPECT_EQ(find(out, "rate[symmetric,n=512,sigma=16] max").verdict, Verdict::kFail);
  EXPECT_EQ(find(out, "rate[symmetric,pooled over 2 (n, sigma) groups] spectral").verdict,
            Verdict::kFail);
}

TEST(ConvergenceChecks, WrongPitchLawFailsTheTightBounds) {
  // Pitch ~ Exponential(mean 2 sigma): the right mean, the wrong law. Its
  // heavier tail breaks the b_max bound, and E[M~] != L* breaks the max-norm
  // bound. (Its trial slopes, ~-0.34 spectral and ~-0.37 max-norm, are outside
  // the band, but too close to it for a sign test of 32 spread trials.)
  const auto out = check_convergence_table(sampler_table(SamplerDefect::kExponentialPitch, 32));
  EXPECT_EQ(find(out, "bound b_max").verdict, Verdict::kFail);
  EXPECT_EQ(find(out, "bound max").verdict, Verdict::kFail);
  EXPECT_EQ(find(out, "bound spectral").verdict, Verdict::kInfo);
}

TEST(ConvergenceChecks, BoundViolationsBeyondBinomialAllowanceFail) {
  // 60 trials of one cell with p = 0.01, at alpha = 6e-3: half of alpha over
  // 3 bounds x 1 cell = 1e-3 per cell. A binomial(60, 0.01) exceeds 4 w.p.
  // 3.5e-4 and 3 w.p. 3.1e-3 (computed independently), so 4 violating trials
  // pass and 5 fail.
  const std::int64_t bmax_bound = b_max_bound(512, 4, 4, 0.01);
  const double mb = max_bound(512, 4, 0.01);
  for (int violations : {4, 5}) {
    std::string bmax_text = csv_line(convergence_columns()), max_text = bmax_text;
    for (int r = 0; r < 60; ++r) {
      const bool bad = r < violations;
      bmax_text +=
          csv_line(synthetic_convergence_row(512, 4, 4, r, 1, 0.1, bad ? bmax_bound + 1 : 5));
      max_text += csv_line(synthetic_convergence_row(512, 4, 4, r, 1, bad ? mb * 1.01 : 0.1, 5));
    }
    const Verdict expected = violations == 5 ? Verdict::kFail : Verdict::kPass;
    auto out = check_convergence_table(CsvTable::parse(bmax_text), 6e-3);
    EXPECT_EQ(find(out, "bound b_max").verdict, expected) << violations;
    out = check_convergence_table(CsvTable::parse(max_text), 6e-3);
    EXPECT_EQ(find(out, "bound max").verdict, expected) << violations;
    EXPECT_EQ(find(out, "bound spectral").verdict, Verdict::kInfo) << violations;
  }
}

TEST(ConvergenceChecks, NotConvergedRowsAreLeftOutAndCounted) {
  const std::string text =
      csv_line(convergence_columns()) +
      csv_line(synthetic_convergence_row(512, 4, 4, 0, 0, 0.1, 5, "not_converged"));
  const auto out = check_convergence_table(CsvTable::parse(text));
  EXPECT_EQ(find(out, "spectral solves").detail.rfind("1 of 1", 0), 0u);
  EXPECT_NE(find(out, "bound spectral").verdict, Verdict::kFail);
}

TEST(ConvergenceChecks, EditedBoundColumnsAreUnusable) {
  const CsvTable& t = sound_table();
  // Loosening a bound to hide a violation.
  expect_unusable(
      with_cell(t, 3, "spectral_bound", format_value(t.number(3, "spectral_bound") * 2)),
      "row 5: spectral_bound");
  expect_unusable(with_cell(t, 3, "max_bound", "0.999"), "row 5: max_bound 0.999 disagrees");
  expect_unusable(with_cell(t, 0, "b_max_bound", "1000"), "row 2: b_max_bound 1000 disagrees");
  // p edited without its bounds.
  expect_unusable(with_cell(t, 7, "p", "0.05"), "disagrees with its recomputation");
  // Printed at 12 significant digits (another printer): still accepted.
  const std::string twelve =
      with_cell(t, 3, "max_bound", fmt::format("{:.12g}", t.number(3, "max_bound")));
  EXPECT_NO_THROW(check_convergence_table(CsvTable::parse(twelve)));
}

TEST(ConvergenceChecks, NanInfNegativeAndBadStatusAreUnusable) {
  const CsvTable& t = sound_table();
  expect_unusable(with_cell(t, 2, "max_error", "nan"), "row 4: max_error is 'nan'");
  expect_unusable(with_cell(t, 2, "max_error", "inf"), "row 4: max_error");
  expect_unusable(with_cell(t, 2, "inf_error", "-0.5"), "row 4: inf_error");
  expect_unusable(with_cell(t, 2, "b_max", "nan"), "row 4: b_max");
  expect_unusable(with_cell(t, 2, "spectral_error", "nan"), "row 4: spectral_error");
  expect_unusable(with_cell(t, 2, "spectral_error", ""), "row 4: spectral_error");
  expect_unusable(with_cell(t, 2, "status", "maybe"), "row 4: status is 'maybe'");
  // A not_converged row's empty spectral_error is fine.
  EXPECT_NO_THROW(check_convergence_table(CsvTable::parse(with_cell(
      CsvTable::parse(with_cell(t, 2, "status", "not_converged")), 2, "spectral_error", ""))));
}

TEST(ConvergenceChecks, SpectralBoundUsesTheCertifiedInterval) {
  // n = 512, sigma = 4, s = 4: violations are decided by spectral_lower,
  // compliance by spectral_upper; rows in between are counted as undecided.
  const double bound = spectral_bound(512, 4, 4, 0.01);
  const auto table = [&](double lower, double upper, int rows) {
    std::string text = csv_line(convergence_columns());
    for (int t = 0; t < rows; ++t) {
      auto row = synthetic_convergence_row(512, 4, 4, t, lower, 0.1, 5);
      row[convergence_column("spectral_upper")] = format_value(upper);
      text += csv_line(row);
    }
    return CsvTable::parse(text);
  };
  // Certainly above the bound on every row: FAIL.
  auto out = check_convergence_table(table(1.01 * bound, 1.02 * bound, 4));
  EXPECT_EQ(find(out, "bound spectral").verdict, Verdict::kFail);
  // Straddling on every row: not a violation, but undecided and flagged.
  out = check_convergence_table(table(0.99 * bound, 1.01 * bound, 4));
  EXPECT_EQ(find(out, "bound spectral").verdict, Verdict::kInfo);
  const CheckOutcome& interval = find(out, "spectral interval");
  EXPECT_EQ(interval.verdict, Verdict::kInfo);
  EXPECT_NE(interval.detail.find("0 rows within the bound"), std::string::npos) << interval.detail;
  EXPECT_NE(interval.detail.find("4 undecided"), std::string::npos) << interval.detail;
  EXPECT_NE(interval.detail.find("could fail"), std::string::npos) << interval.detail;
  // An uncertified upper end (inf) never counts as within.
  out = check_convergence_table(table(0.5 * bound, INFINITY, 2));
  EXPECT_NE(find(out, "spectral interval").detail.find("2 undecided"), std::string::npos);
  // Inconsistent or missing intervals are unusable input.
  const CsvTable good = table(0.5 * bound, 0.6 * bound, 2);
  expect_unusable(with_cell(good, 0, "spectral_upper", "nan"), "row 2: spectral_upper");
  expect_unusable(with_cell(good, 0, "spectral_upper", format_value(0.4 * bound)),
                  "row 2: spectral_upper");
  expect_unusable(with_cell(good, 1, "spectral_error", format_value(0.7 * bound)),
                  "row 3: spectral_error");
}

TEST(ConvergenceChecks, TablesWithoutSpectralUpperAreReadWithANote) {
  // Tables written before spectral_upper existed: the estimate's bracket
  // stands in for the upper end, and the output says so.
  const CsvTable& t = sound_table();
  std::vector<std::string> cols;
  for (const auto& c : t.columns())
    if (c != "spectral_upper") cols.push_back(c);
  std::string text = csv_line(cols);
  for (std::size_t r = 0; r < t.size(); ++r) {
    CsvRow row;
    for (const auto& c : cols) row.push_back(t.text(r, c));
    text += csv_line(row);
  }
  const auto out = check_convergence_table(CsvTable::parse(text));
  EXPECT_EQ(find(out, "bound spectral").verdict, Verdict::kInfo);
  EXPECT_NE(find(out, "spectral interval").detail.find("an older table"), std::string::npos);
  EXPECT_EQ(count(out, Verdict::kFail), 0);
}

TEST(ConvergenceChecks, DuplicatedColumnOrRowIsUnusable) {
  auto cols = convergence_columns();
  cols.push_back("max_error");
  auto row = synthetic_convergence_row(512, 4, 4, 0, 0.1, 0.1, 5);
  row.push_back("0.1");
  expect_unusable(csv_line(cols) + csv_line(row), "column 'max_error' appears twice");
  const auto r = csv_line(synthetic_convergence_row(512, 4, 4, 0, 0.1, 0.1, 5));
  expect_unusable(csv_line(convergence_columns()) + r + r, "row 3: a second row");
}

}  // namespace
}  // namespace poslsh
