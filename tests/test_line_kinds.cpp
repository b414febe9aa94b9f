// No verdict without evidence: every PASS/FAIL line kind that `poslsh check`
// and `poslsh verify` print is shown FAILing here on a table (or a sampler
// defect) built for it.
//
// The kinds are not listed by hand: a sound run of each checker (fixed seeds,
// small sizes) prints them, and every kind that run prints as PASS or FAIL
// must have a failing case below. A new line kind without one fails
// EveryKindASoundRunPrintsHasAFailingCase.
//
// False alarms: the sound tables come from fixed seeds and are each checked
// at kCheckFamilyAlpha, so fresh seeds would fail one of the six sound runs
// here with probability <= 6e-3 (the lm table, whose lines are all
// descriptive, is synthetic).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poslsh/bounds.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "convergence_rows.h"
#include "experiments/defects/sampler_defect.h"
#include "experiments/attention/attention.h"
#include "experiments/blocksize/blocksize.h"
#include "experiments/convergence/convergence.h"
#include "experiments/lm/lm.h"
#include "experiments/power/power.h"
#include "experiments/unbiasedness/unbiasedness.h"
#include "experiments/verify/verify.h"
#include "runner/cli_common.h"
#include "runner/csv_table.h"

namespace poslsh {
namespace {

using Outcomes = std::vector<CheckOutcome>;
using testing::convergence_column;
using testing::power_law_convergence_table;

// The kind of a line: its name up to '[', trailing spaces dropped.
std::string kind_of(const std::string& check) {
  std::string kind = check.substr(0, check.find('['));
  while (!kind.empty() && kind.back() == ' ') kind.pop_back();
  return kind;
}

CsvTable table_of(const std::vector<std::string>& columns, const std::vector<CsvRow>& rows) {
  std::string text = csv_line(columns);
  for (const auto& r : rows) text += csv_line(r);
  return CsvTable::parse(text);
}

// --- unbiasedness -------------------------------------------------------
Outcomes unbiasedness_outcomes(SamplerDefect defect) {
  std::vector<CsvRow> rows;
  for (const double sigma : {2.0, 8.0}) {
    auto part = unbiasedness_cell_rows(4096, sigma, 1 << 16, 16, 12, hash_drawer(1, defect));
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return check_unbiasedness_table(table_of(unbiasedness_columns(), rows));
}

// --- blocksize (the sizes of tests/test_blocksize_checks.cpp) ------------
Outcomes blocksize_outcomes(SamplerDefect defect, std::int64_t trials) {
  std::vector<CsvRow> rows;
  const std::vector<SampleCount> counts = {{8, 0}, {64, 0}, {0, 2}};
  for (const std::int64_t n : {std::int64_t{1} << 16, std::int64_t{1} << 20, std::int64_t{1} << 25,
                               std::int64_t{1} << 30}) {
    auto part = blocksize_cell_rows(n, 4, counts, trials, hash_drawer(2024, defect), 0.01);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return check_blocksize_table(table_of(blocksize_columns(), rows));
}

// --- convergence: synthetic rows with the bound columns as written -------
// Trials j with errors 0.05 s^slopes[j], s = 4..256 (tests/convergence_rows.h);
// `edit` may change a row.
Outcomes convergence_outcomes(const std::vector<double>& slopes,
                              const std::function<void(CsvRow&, std::int64_t s)>& edit = {}) {
  return check_convergence_table(power_law_convergence_table(slopes, edit));
}

// 16 distinct trial slopes in the band: enough trials for the rate lines'
// sign test at their levels, and no two trials repeated.
const std::vector<double> kBandSlopes = {-0.5,  -0.45,  -0.55,  -0.48,  -0.52, -0.49,
                                         -0.47, -0.53,  -0.51,  -0.46,  -0.54, -0.44,
                                         -0.56, -0.505, -0.495, -0.5025};
// The same in every trial: a hash stream that ignores the trial index.
const std::vector<double> kRepeatedSlopes(16, -0.5);
// An error flat in s, 16 trials.
const std::vector<double> kFlatSlopes = {0.0,    0.01,  -0.01,  0.005, 0.02,   -0.02,
                                         0.015,  0.001, -0.005, 0.012, -0.012, 0.003,
                                         -0.003, 0.018, -0.018, 0.008};

// --- attention: rows as `poslsh attention` writes them -------------------
const std::string kAttentionHeader =
    "n,d,sigma,head,form,s,trial,estimator,width,keys_per_query,largest_block,max_error,"
    "rel_frobenius_error,certificate,uniform_bound,rounding_allowance,max_abs_logit,seconds,"
    "control_max_error,control_rel_frobenius_error,estimator_deviation,precision,layout\n";

std::string attention_row(std::int64_t n, int s, int trial, double err, double rel, double cert,
                          double unif, double control_err, double control_rel) {
  return fmt::format("{},4,4,0,symmetric,{},{},lsh,,8,9,{},{},{},{},1e-12,1,0.01,{},{},,,\n", n, s,
                     trial, format_value(err), format_value(rel), format_value(cert),
                     format_value(unif), format_value(control_err), format_value(control_rel));
}

// Trials j with max_error 0.8 s^slopes[j] at s = 1..64 (n = 512: large
// enough against sigma = 4 for trials-distinct to decide), certificate 4x, and
// rel_frobenius_error 0.1 growth(n) at n = 1024..65536 (s = 16, 16 trials).
// The control sampler's errors: those of the next trial (the same values, as
// a sound sampler's law gives), or control_scale times the trial's own.
// A path row (experiments/attention/attention_paths.h): float32 exact attention off
// its definition by `path_deviation` against an allowance of 1e-4.
std::string attention_path_row(double path_deviation) {
  return fmt::format("1000,16,64,2,symmetric,,,path-exact,,1000,,{0},0,0,0,1e-4,5,,,,{0},"
                     "float32,multi-head\n",
                     format_value(path_deviation));
}

Outcomes attention_outcomes(const std::vector<double>& slopes,
                            const std::function<double(double)>& growth, double cert_factor = 4,
                            double unif = 1e6, double control_scale = 0,
                            double path_deviation = 1e-7) {
  std::string text = kAttentionHeader + attention_path_row(path_deviation);
  const std::size_t m = slopes.size();
  for (std::size_t j = 0; j < m; ++j)
    for (const int s : {1, 4, 16, 64}) {
      const double e = 0.8 * std::pow(s, slopes[j]), rel = 0.1 * (2 + slopes[j]);
      const double next = slopes[(j + 1) % m];
      const double ce = control_scale > 0 ? control_scale * e : 0.8 * std::pow(s, next);
      const double crel = control_scale > 0 ? control_scale * rel : 0.1 * (2 + next);
      text += attention_row(512, s, static_cast<int>(j), e, rel, cert_factor * e, unif, ce, crel);
    }
  const double noise[7] = {0.3, -0.8, 0.5, -0.2, 0.9, -0.6, 0.1};
  for (int trial = 0; trial < 16; ++trial)
    for (const int n : {1024, 4096, 16384, 65536}) {
      const double rel =
          0.1 * growth(n) * (1 + 0.01 * noise[(trial + n / 1024) % 7] + 1e-4 * trial);
      const double e = 0.1 * std::log(n);
      text += attention_row(n, 16, trial, e, rel, 4 * e, 1e6, e, rel * (1 + 1e-6 * (trial - 8)));
    }
  return check_attention_table(CsvTable::parse(text));
}

// --- lm: swap-in output errors 0.4 s^-1/2 (1 + 5% noise) + floor, 16 draws -
Outcomes lm_outcomes(double floor) {
  std::string text = csv_line(lm_columns());
  const double noise[8] = {0.03, -0.05, 0.01, 0.04, -0.02, -0.04, 0.05, -0.01};
  for (int trial = 0; trial < 16; ++trial)
    for (const int s : {1, 2, 4, 8, 16, 32, 64})
      text += fmt::format("exact,,0,train,10,lsh,{},,,,{},0,0,4,128,output_error,{},,1,0.02,,\n",
                          s, trial,
                          format_value(0.4 / std::sqrt(s) * (1 + noise[(trial + s) % 8]) + floor));
  return check_lm_table(CsvTable::parse(text), kCheckFamilyAlpha);
}

// --- power ---------------------------------------------------------------
Outcomes power_outcomes(int seeds, int sound_failures, int detections) {
  std::string t = csv_line(power_columns());
  for (int s = 0; s < seeds; ++s) {
    t += fmt::format("sound,{},unbiasedness,cobin-mean,{},\n", s, s < sound_failures ? 1 : 0);
    t += fmt::format("pitch-x1.05,{},unbiasedness,cobin-scale,{},\n", s, s < detections ? 1 : 0);
  }
  return check_power_table(CsvTable::parse(t), kCheckFamilyAlpha);
}

// --- verify: hashes exported as `poslsh sample` writes them --------------
Outcomes verify_outcomes(const std::function<PositionalHash(std::uint64_t k)>& draw,
                         std::int64_t samples) {
  std::string text = "sample,pitch,shift\n";
  for (std::int64_t k = 0; k < samples; ++k) {
    const PositionalHash h = draw(static_cast<std::uint64_t>(k));
    text += fmt::format("{},{},{}\n", k, format_value(h.pitch), format_value(h.shift));
  }
  const std::int64_t n = std::int64_t{1} << 20;
  VerifyOptions o;
  o.n = n;
  o.sigma = 4;
  return verify_samples(samples_from_hashes(CsvTable::parse(text), n), o).outcomes;
}

Outcomes verify_outcomes(SamplerDefect defect, std::int64_t samples) {
  return verify_outcomes([defect](std::uint64_t k) { return draw_hash(7, 0, k, 4.0, defect); },
                         samples);
}

// Every run of 32 hashes repeated once (a generator with a short period).
PositionalHash repeated_runs_of_32(std::uint64_t k) {
  return draw_hash(7, 0, k % 64 >= 32 ? k - 32 : k, 4.0);
}

// Pitches redrawn while above 10 sigma (a "limit the block size" shortcut).
PositionalHash pitch_capped_at_10_sigma(std::uint64_t k) {
  PositionalHash h = draw_hash(7, 0, k, 4.0);
  for (std::uint64_t j = 1; h.pitch > 40; ++j) h = draw_hash(7, j, k, 4.0);
  return h;
}

// --- the sound runs and the failing cases ---------------------------------
struct Source {
  std::string name;
  std::function<Outcomes()> sound;
};

const std::vector<Source>& sources() {
  static const std::vector<Source> all = {
      {"unbiasedness", [] { return unbiasedness_outcomes(SamplerDefect::kNone); }},
      {"blocksize", [] { return blocksize_outcomes(SamplerDefect::kNone, 300); }},
      {"convergence", [] { return convergence_outcomes(kBandSlopes); }},
      {"attention", [] { return attention_outcomes(kBandSlopes, [](double) { return 1.0; }); }},
      // enough seeds for both power lines to show their rates (PASS means shown)
      {"power", [] { return power_outcomes(3000, 0, 3000); }},
      {"verify", [] { return verify_outcomes(SamplerDefect::kNone, 1 << 16); }},
  };
  return all;
}

struct FailingCase {
  std::string source, kind, how;
  std::function<Outcomes()> run;
};

const std::vector<FailingCase>& failing_cases() {
  static const std::vector<FailingCase> all = {
      {"unbiasedness", "cobin-mean", "pitch x 1.05",
       [] { return unbiasedness_outcomes(SamplerDefect::kPitchScale105); }},
      {"unbiasedness", "cobin-scale", "pitch x 1.05",
       [] { return unbiasedness_outcomes(SamplerDefect::kPitchScale105); }},
      {"unbiasedness", "cobin-dispersion", "every hash drawn twice in a row",
       [] { return unbiasedness_outcomes(SamplerDefect::kRepeatedHashes); }},
      {"unbiasedness", "unbiasedness", "a table without rows",
       [] { return check_unbiasedness_table(table_of(unbiasedness_columns(), {})); }},
      {"blocksize", "bound", "exponential pitch of the right mean",
       [] { return blocksize_outcomes(SamplerDefect::kExponentialPitch, 300); }},
      {"blocksize", "law", "pitch x 1.05",
       [] { return blocksize_outcomes(SamplerDefect::kPitchScale105, 1000); }},
      {"blocksize", "growth", "pitch x 1.05",
       [] { return blocksize_outcomes(SamplerDefect::kPitchScale105, 1000); }},
      {"convergence", "rate", "an error flat in s",
       [] { return convergence_outcomes(kFlatSlopes); }},
      {"convergence", "trials-distinct", "every trial the same",
       [] { return convergence_outcomes(kRepeatedSlopes); }},
      {"convergence", "bound max", "max_error above its bound in every trial",
       [] {
         return convergence_outcomes(kBandSlopes, [](CsvRow& r, std::int64_t s) {
           r[convergence_column("max_error")] = format_value(1.01 * max_bound(512, s, 0.01));
         });
       }},
      {"convergence", "bound b_max", "b_max above its bound in every trial",
       [] {
         return convergence_outcomes(kBandSlopes, [](CsvRow& r, std::int64_t s) {
           r[convergence_column("b_max")] = std::to_string(b_max_bound(512, 4, s, 0.01) + 1);
         });
       }},
      {"convergence", "bound spectral", "spectral error above its bound in every trial",
       [] {
         return convergence_outcomes(kBandSlopes, [](CsvRow& r, std::int64_t s) {
           const double e = 1.01 * spectral_bound(512, 4, s, 0.01);
           for (const char* c : {"spectral_error", "spectral_lower"})
             r[convergence_column(c)] = format_value(e);
           r[convergence_column("spectral_upper")] = format_value(e * 1.001);
         });
       }},
      {"convergence", "rows", "a table without rows",
       [] { return check_convergence_table(table_of(convergence_columns(), {})); }},
      {"attention", "certificate", "an error above its certificate",
       [] {
         return attention_outcomes(
             kBandSlopes, [](double) { return 1.0; }, 0.5);
       }},
      {"attention", "uniform-bound", "an error above the uniform bound",
       [] {
         return attention_outcomes(
             kBandSlopes, [](double) { return 1.0; }, 4, 0.01);
       }},
      {"attention", "error-law", "errors twice the control sampler's in every trial",
       [] {
         return attention_outcomes(
             kBandSlopes, [](double) { return 1.0; }, 4, 1e6, 0.5);
       }},
      {"attention", "paths", "a float32 path off its definition by 10x its allowance",
       [] {
         return attention_outcomes(
             kBandSlopes, [](double) { return 1.0; }, 4, 1e6, 0, 1e-3);
       }},
      {"attention", "trials-distinct", "every trial the same",
       [] { return attention_outcomes(kRepeatedSlopes, [](double) { return 1.0; }); }},
      {"power", "power", "a defect detected in no seed", [] { return power_outcomes(50, 0, 0); }},
      {"power", "false-alarm", "the sound sampler failing every seed",
       [] { return power_outcomes(50, 50, 50); }},
      {"verify", "cobin-mean", "pitch x 1.05",
       [] { return verify_outcomes(SamplerDefect::kPitchScale105, 1 << 16); }},
      {"verify", "cobin-scale", "pitch x 1.05",
       [] { return verify_outcomes(SamplerDefect::kPitchScale105, 1 << 16); }},
      {"verify", "cobin-dispersion", "every hash drawn twice in a row",
       [] { return verify_outcomes(SamplerDefect::kRepeatedHashes, 1 << 16); }},
      {"verify", "dispersion-lags", "every run of 32 hashes repeated once",
       [] { return verify_outcomes(repeated_runs_of_32, 1 << 16); }},
      {"verify", "pitch-law", "pitches capped at 10 sigma",
       [] { return verify_outcomes(pitch_capped_at_10_sigma, 1 << 16); }},
      {"verify", "law", "pitch x 1.05",
       [] { return verify_outcomes(SamplerDefect::kPitchScale105, 1 << 16); }},
  };
  return all;
}

std::string dump(const Outcomes& out) {
  std::string text;
  for (const auto& o : out)
    text += fmt::format("{} {}: {}\n", verdict_name(o.verdict), o.check, o.detail);
  return text;
}

TEST(LineKinds, EveryKindASoundRunPrintsHasAFailingCase) {
  std::set<std::pair<std::string, std::string>> covered;
  for (const auto& c : failing_cases()) covered.insert({c.source, c.kind});
  for (const auto& source : sources()) {
    const Outcomes out = source.sound();
    std::set<std::string> kinds;
    for (const auto& o : out) {
      EXPECT_NE(o.verdict, Verdict::kFail) << source.name << " sound run: " << dump(out);
      if (o.verdict == Verdict::kPass || o.verdict == Verdict::kFail)
        kinds.insert(kind_of(o.check));
    }
    EXPECT_FALSE(kinds.empty()) << source.name << ": no PASS line at all\n" << dump(out);
    for (const auto& k : kinds)
      EXPECT_TRUE(covered.contains({source.name, k}))
          << source.name << " prints PASS/FAIL lines of kind '" << k
          << "' but no case in failing_cases() shows one failing";
  }
}

// The lm table's lines are all descriptive (the swap-in rate has no proven
// null on trained heads, docs/MATH.md §9; WARN, a gap still moving, is not a
// test either), with or without an error floor: a
// PASS/FAIL line added there needs a source above and a failing case.
TEST(LineKinds, LmLinesAreAllDescriptive) {
  for (double floor : {0.0, 0.3})
    for (const auto& o : lm_outcomes(floor))
      EXPECT_TRUE(o.verdict == Verdict::kInfo || o.verdict == Verdict::kNotApplicable ||
                  o.verdict == Verdict::kWarning)
          << o.check << ": " << o.detail;
}

TEST(LineKinds, EveryFailingCaseFails) {
  std::map<std::string, Outcomes> memo;  // cases sharing a table run it once
  for (const auto& c : failing_cases()) {
    const std::string key = c.source + "/" + c.how;
    if (!memo.contains(key)) memo[key] = c.run();
    const Outcomes& out = memo[key];
    bool failed = false;
    for (const auto& o : out)
      failed = failed || (kind_of(o.check) == c.kind && o.verdict == Verdict::kFail);
    EXPECT_TRUE(failed) << c.source << " " << c.kind << " on " << c.how << ":\n" << dump(out);
  }
}

}  // namespace
}  // namespace poslsh
