// Lines decide where they are printed: the default reproduction's plan
// (configs/default.toml through `reproduce`'s planning code: its sections and
// each checked table's share of the family-wise level) walked with tables of
// the plan's exact sizes, so that a line's verdict depends on the trials and
// seeds the config runs, not on the values, which are synthetic (cheap).
//
// The rule, for every line kind alike: a line printed PASS on the sound table
// must be FAILed, at the same sizes and level, by some table built to refute
// it (an error flat in s, repeated trials, bounds exceeded, a defect never
// detected, an alarm in every seed). A line whose trials cannot reach its
// share of the level must not be printed as a check: it is info or n/a, and
// then it is not asserted on. The remaining sections are listed below with
// the reason they are not rebuilt here, so a new section in the default
// config has to be placed in one list or the other.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poslsh/bounds.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "config_values.h"
#include "convergence_rows.h"
#include "experiments/attention/attention.h"
#include "experiments/convergence/convergence.h"
#include "experiments/defects/planted_defect.h"
#include "experiments/power/power.h"
#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"
#include "runner/csv_writer.h"

namespace poslsh {
namespace {

using Outcomes = std::vector<CheckOutcome>;

const std::string kConfig = std::string(POSLSH_SOURCE_DIR) + "/configs/default.toml";

// The values an option of `poslsh <section>` takes from the default config.
std::vector<std::string> config_values(const std::string& section, const std::string& option) {
  return testing::config_values(kConfig, section, option);
}

std::vector<double> numbers(const std::vector<std::string>& values) {
  std::vector<double> out;
  for (const auto& v : values) out.push_back(std::stod(v));
  return out;
}

// --- convergence: the plan's (n, sigma, s, trials), synthetic errors --------
enum class ConvergenceTable { kSound, kFlat, kRepeatedTrials, kAboveBounds };

CsvTable convergence_table(ConvergenceTable kind) {
  const auto n = numbers(config_values("convergence", "n"));
  const auto sigma = numbers(config_values("convergence", "sigma"));
  const auto s = numbers(config_values("convergence", "s"));
  const int trials = static_cast<int>(numbers(config_values("convergence", "trials")).front());
  const double p = numbers(config_values("convergence", "p")).front();
  const double s_max = *std::max_element(s.begin(), s.end());
  std::string text = csv_line(convergence_columns());
  for (const double nn : n)
    for (const double sg : sigma)
      for (const double ss : s)
        for (int j = 0; j < trials; ++j) {
          const auto ni = static_cast<std::int64_t>(nn), si = static_cast<std::int64_t>(ss);
          // Trial j's slope: -0.5 + a small spread (distinct per trial), or 0 (flat).
          const int t = kind == ConvergenceTable::kRepeatedTrials ? 0 : j;
          const double slope =
              kind == ConvergenceTable::kFlat ? 0.0 : -0.5 + 0.004 * ((t % 9) - 4) + 1e-5 * t;
          const double shape = std::pow(ss / s_max, slope);
          // Below every bound: the bounds fall no faster than s^-1/2 from s_max down.
          const double spectral =
              0.05 * spectral_bound(ni, sg, static_cast<std::int64_t>(s_max), p) * shape;
          double max_error = 0.05 * max_bound(ni, static_cast<std::int64_t>(s_max), p) * shape;
          std::int64_t b_max = b_max_bound(ni, sg, si, p) / 2 + (t % 3);
          if (kind == ConvergenceTable::kAboveBounds) {
            max_error = 1.01 * max_bound(ni, si, p);
            b_max = b_max_bound(ni, sg, si, p) + 1;
          }
          text += csv_line(testing::synthetic_convergence_row(ni, sg, si, j, spectral, max_error,
                                                              b_max, "ok", p));
        }
  return CsvTable::parse(text);
}

// --- power: the plan's samplers and seeds ---------------------------------
enum class PowerTable { kSound, kNothingDetected, kEveryoneFails };

CsvTable power_table(PowerTable kind) {
  const int seeds = static_cast<int>(numbers(config_values("power", "seeds")).front());
  std::vector<PlantedDefect> defects;
  for (const auto& name : config_values("power", "defects"))
    defects.push_back(parse_planted_defect(name));
  if (defects.empty()) defects = all_planted_defects();
  std::string text = csv_line(power_columns());
  for (const auto& d : defects)
    for (int k = 0; k < seeds; ++k) {
      const bool failed =
          d.sound() ? kind == PowerTable::kEveryoneFails : kind != PowerTable::kNothingDetected;
      text += fmt::format("{},{},unbiasedness,cobin-mean,{},\n", d.name(), k, failed ? 1 : 0);
    }
  return CsvTable::parse(text);
}

// --- attention, attention-length: the plan's groups, s and trials ----------
// lsh rows only (the error-law and trials-distinct lines read nothing else):
// tested and control errors interleaved (sound: no rank test can reject), or
// every tested error above every control error (a biased sampler), or every
// trial the same hashes (one hash_digest for all), or errors above their
// certificate.
enum class AttentionTable { kSound, kTestedAboveControl, kRepeatedTrials, kAboveCertificate };

CsvTable attention_table(const std::string& section, AttentionTable kind) {
  const auto n = numbers(config_values(section, "n"));
  const auto d = numbers(config_values(section, "d"));
  const auto sigma = numbers(config_values(section, "sigma"));
  const auto s = numbers(config_values(section, "s"));
  const int trials = static_cast<int>(numbers(config_values(section, "trials")).front());
  std::string text =
      "n,d,sigma,head,form,s,trial,estimator,width,keys_per_query,largest_block,max_error,"
      "rel_frobenius_error,certificate,uniform_bound,rounding_allowance,max_abs_logit,seconds,"
      "scale_projection,control_max_error,control_rel_frobenius_error,control_scale_projection,"
      "hash_digest\n";
  for (const double nn : n)
    for (const double dd : d)
      for (std::size_t h = 0; h < sigma.size(); ++h)
        for (const double ss : s)
          for (int j = 0; j < trials; ++j) {
            const double shift = kind == AttentionTable::kTestedAboveControl  ? 1.0
                                 : kind == AttentionTable::kAboveCertificate ? 20.0
                                                                             : 0.0;
            const double tested = 0.1 + 0.002 * (2 * j) + shift, control = 0.1 + 0.002 * (2 * j + 1);
            const int digest = kind == AttentionTable::kRepeatedTrials ? 0 : j;
            text += fmt::format(
                "{},{},{},{},symmetric,{},{},lsh,,{},{},{},{},10,1e6,1e-12,1,0.01,{},{},{},{},{:016x}\n",
                nn, dd, format_value(sigma[h]), h, ss, j, 2 * sigma[h] * ss, 4 * sigma[h], tested,
                tested, tested, control, control, control,
                static_cast<std::int64_t>(digest + 1000 * ss));
          }
  return CsvTable::parse(text);
}

// --- the walk ---------------------------------------------------------------
struct Walked {
  std::function<Outcomes(double alpha)> sound;
  std::vector<std::pair<std::string, std::function<Outcomes(double alpha)>>> refuting;
};

std::map<std::string, Walked> walked_sections() {
  using C = ConvergenceTable;
  using P = PowerTable;
  const auto conv = [](C kind) {
    return [kind](double alpha) { return check_convergence_table(convergence_table(kind), alpha); };
  };
  using A = AttentionTable;
  const auto att = [](const std::string& section, A kind) {
    return [section, kind](double alpha) {
      return check_attention_table(attention_table(section, kind), alpha);
    };
  };
  const auto pow = [](P kind) {
    return [kind](double alpha) { return check_power_table(power_table(kind), alpha); };
  };
  return {
      {"convergence",
       {conv(C::kSound),
        {{"errors flat in s", conv(C::kFlat)},
         {"every trial the same", conv(C::kRepeatedTrials)},
         {"max_error and b_max above their bounds", conv(C::kAboveBounds)}}}},
      {"attention",
       {att("attention", A::kSound),
        {{"tested errors above the control's", att("attention", A::kTestedAboveControl)},
         {"every trial the same hashes", att("attention", A::kRepeatedTrials)},
         {"errors above their certificate", att("attention", A::kAboveCertificate)}}}},
      {"attention-length",
       {att("attention-length", A::kSound),
        {{"tested errors above the control's", att("attention-length", A::kTestedAboveControl)},
         {"every trial the same hashes", att("attention-length", A::kRepeatedTrials)},
         {"errors above their certificate", att("attention-length", A::kAboveCertificate)}}}},
      {"power",
       {pow(P::kSound),
        {{"no defect detected", pow(P::kNothingDetected)},
         {"every seed failing", pow(P::kEveryoneFails)}}}},
  };
}

// Sections of the plan not rebuilt here, and why.
const std::map<std::string, std::string>& sections_not_walked() {
  static const std::map<std::string, std::string> why = {
      {"blocksize",
       "exact binomial and Chernoff tails over 1000 trials per cell: every line can fail at any "
       "share of the level the plan gives (tests/test_blocksize_checks.cpp)"},
      {"unbiasedness",
       "exact tails over 2^19 hashes (8192 for the first-hash rows): every line can fail "
       "(tests/test_unbiasedness.cpp)"},
      {"hash-law",
       "exact binomial tails pooled over sigma (32768 trials per index, 2^24 hashes), an equal "
       "pair or an unequal hash at any count: every line can fail (tests/test_hash_law.cpp)"},
      {"lm", "the lm lines: tests/test_lm_checks.cpp"},
      {"bench.attention", "a benchmark: no checks"},
  };
  return why;
}

std::string dump(const Outcomes& out) {
  std::string text;
  for (const auto& o : out)
    text += fmt::format("{} {}: {}\n", verdict_name(o.verdict), o.check, o.detail);
  return text;
}

TEST(DefaultPlan, EverySectionIsWalkedOrSaysWhyNot) {
  const auto sections = reproduce_sections(read_file("--config", kConfig), kConfig);
  const auto walked = walked_sections();
  for (const auto& s : sections)
    EXPECT_TRUE(walked.contains(s) || sections_not_walked().contains(s))
        << "configs/default.toml section [" << s << "] is neither walked nor listed";
  for (const auto& [s, w] : walked)
    EXPECT_NE(std::find(sections.begin(), sections.end(), s), sections.end()) << s;
}

TEST(DefaultPlan, EveryPassLineCanFailAtThePlansSizes) {
  const auto sections = reproduce_sections(read_file("--config", kConfig), kConfig);
  const double alpha = reproduce_table_alpha(sections);
  EXPECT_NEAR(alpha, 1e-3 / 8, 1e-12);  // eight checked tables, one benchmark
  for (const auto& [section, w] : walked_sections()) {
    const Outcomes sound = w.sound(alpha);
    std::set<std::string> failable;
    for (const auto& [how, run] : w.refuting)
      for (const auto& o : run(alpha))
        if (o.verdict == Verdict::kFail) failable.insert(o.check);
    int passed = 0;
    for (const auto& o : sound) {
      EXPECT_NE(o.verdict, Verdict::kFail) << section << ": " << o.check << ": " << o.detail;
      if (o.verdict != Verdict::kPass) continue;
      ++passed;
      EXPECT_TRUE(failable.contains(o.check))
          << section << ": " << o.check
          << " is PASS at the default plan's sizes, but no refuting table of those sizes FAILs "
             "it: a line that cannot fail there must be info\n"
          << o.detail;
    }
    if (section == "convergence") {
      EXPECT_GT(passed, 0) << dump(sound);
    }
  }
}

// The convergence lines the default reproduction relies on decide there: the
// bounds, the pooled rate lines (18 trials against the 17 their share needs)
// and trials-distinct; the per-group rate lines (which would need 22 trials
// at their share) are info, not PASS, and say how many trials they need.
TEST(DefaultPlan, ConvergenceLinesThatDecideAndThoseThatSayTheyCannot) {
  const double alpha =
      reproduce_table_alpha(reproduce_sections(read_file("--config", kConfig), kConfig));
  const Outcomes out = check_convergence_table(convergence_table(ConvergenceTable::kSound), alpha);
  int pooled = 0, distinct = 0, group_info = 0;
  for (const auto& o : out) {
    if (o.check.find("pooled") != std::string::npos) {
      ++pooled;
      EXPECT_EQ(o.verdict, Verdict::kPass) << o.check << ": " << o.detail;
    } else if (o.check.rfind("rate[", 0) == 0) {
      group_info += o.verdict == Verdict::kInfo;
      if (o.verdict == Verdict::kInfo) {
        EXPECT_NE(o.detail.find("needs >="), std::string::npos) << o.detail;
      }
    } else if (o.check.rfind("trials-distinct[", 0) == 0) {
      ++distinct;
      EXPECT_EQ(o.verdict, Verdict::kPass) << o.check << ": " << o.detail;
    }
  }
  EXPECT_EQ(pooled, 2);
  EXPECT_EQ(distinct, 12);
  EXPECT_EQ(group_info, 24);
}

// The attention sections' statistical lines decide at the plan's trials:
// every error-law line and every trials-distinct line is PASS on the sound
// table, never n/a (fewer trials, e.g. [attention] trials = 11, would turn
// them n/a in silence), and their counts are those docs/checks.md quotes:
// 20 error-law lines in [attention], 4 in [attention-length].
TEST(DefaultPlan, AttentionStatisticalLinesDecideAtThePlansTrials) {
  const double alpha =
      reproduce_table_alpha(reproduce_sections(read_file("--config", kConfig), kConfig));
  for (const auto& [section, law_lines] :
       std::vector<std::pair<std::string, int>>{{"attention", 20}, {"attention-length", 4}}) {
    const Outcomes out =
        check_attention_table(attention_table(section, AttentionTable::kSound), alpha);
    int law = 0, distinct = 0;
    for (const auto& o : out) {
      const bool is_law = o.check.rfind("error-law[", 0) == 0;
      const bool is_distinct = o.check.rfind("trials-distinct[", 0) == 0;
      law += is_law;
      distinct += is_distinct;
      if (is_law || is_distinct) {
        EXPECT_EQ(o.verdict, Verdict::kPass) << section << ": " << o.check << ": " << o.detail;
      }
    }
    EXPECT_EQ(law, law_lines) << section << "\n" << dump(out);
    EXPECT_GT(distinct, 0) << section;
  }
}

// The power lines: two seeds per sampler can neither show a detection rate
// of 0.99 nor refute it, so no power line is PASS (or FAIL) in the default
// reproduction; they are info and name the seeds they need.
TEST(DefaultPlan, PowerLinesAreInfoWithTheSeedsTheyNeed) {
  const double alpha =
      reproduce_table_alpha(reproduce_sections(read_file("--config", kConfig), kConfig));
  const Outcomes out = check_power_table(power_table(PowerTable::kSound), alpha);
  ASSERT_FALSE(out.empty());
  for (const auto& o : out) {
    EXPECT_EQ(o.verdict, Verdict::kInfo) << o.check << ": " << o.detail;
    EXPECT_NE(o.detail.find("consistent with, not shown: 2 seeds"), std::string::npos) << o.detail;
  }
}

}  // namespace
}  // namespace poslsh
