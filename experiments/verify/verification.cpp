#include "experiments/verify/verification.h"

#include <fmt/format.h>
#include <poslsh/argument_error.h>
#include <poslsh/block_size.h>
#include <poslsh/block_size_law.h>
#include <poslsh/pitch_law.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

#include "experiments/blocksize/blocksize_fit.h"
#include "experiments/unbiasedness/cobinning_checks.h"
#include "experiments/unbiasedness/cobinning.h"
#include "stats/binomial.h"
#include "stats/dispersion.h"

namespace poslsh {

// ---- one sample ----------------------------------------------------------------

VerifySample sample_of_hash(const PositionalHash& h, std::int64_t n, std::int64_t trial) {
  VerifySample s;
  s.trial = trial;
  s.pitch_lo = s.pitch_hi = h.pitch;
  for (int a = 0; a < 3; ++a) s.runs[a] = cobin_run(h, all_cobin_regions()[a], n);
  // The partition depends on the shift modulo the pitch only; the O(1)
  // largest-block scan wants it in [0, pitch].
  double folded = std::fmod(h.shift, h.pitch);
  if (folded < 0) folded += h.pitch;
  s.b_max =
      n <= (std::int64_t{1} << 50) ? largest_block_size({h.pitch, folded}, n) : largest_block(h, n);
  return s;
}

VerifySample sample_of_partition(const std::vector<std::int64_t>& starts, std::int64_t n,
                                 std::int64_t trial) {
  const std::int64_t anchors[3] = {cobin_anchor(CobinRegion::kStart, n),
                                   cobin_anchor(CobinRegion::kMiddle, n),
                                   cobin_anchor(CobinRegion::kEnd, n)};
  VerifySample s;
  s.trial = trial;
  const std::size_t blocks = starts.size() - 1;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::int64_t start = starts[b], end = starts[b + 1];
    s.b_max = std::max(s.b_max, end - start);
    for (int a = 0; a < 3; ++a) {
      if (anchors[a] < start || anchors[a] >= end) continue;
      s.runs[a] = a == 2 ? anchors[a] - start + 1 : end - anchors[a];
    }
  }
  const std::int64_t last_start = starts[blocks - 1];
  const PitchBounds p = pitch_bounds_from_blocks(static_cast<std::int64_t>(blocks), starts[1],
                                                 last_start, n - last_start, s.b_max);
  s.pitch_lo = p.lo;
  s.pitch_hi = p.hi;
  return s;
}

// ---- samples from arrays -------------------------------------------------------

namespace {

// The trial of sample k (0 without trials), checked to be >= 0 and not to
// decrease (the samples of a trial together, trials in order).
std::int64_t trial_at(std::span<const std::int64_t> trial, std::size_t k) {
  if (trial.empty()) return 0;
  if (trial[k] < 0)
    throw ArgumentError("trial", "must hold trial numbers >= 0",
                        fmt::format("{} at index {}", trial[k], k));
  if (k > 0 && trial[k] < trial[k - 1])
    throw ArgumentError(
        "trial", "must not decrease (each trial's samples together, trials in increasing order)",
        fmt::format("{} after {} at index {}", trial[k], trial[k - 1], k));
  return trial[k];
}

void check_trial_length(std::span<const std::int64_t> trial, std::size_t samples, const char* of) {
  if (!trial.empty() && trial.size() != samples)
    throw ArgumentError("trial",
                        fmt::format("must hold one trial per sample ({} of {})", samples, of),
                        fmt::format("{} values", trial.size()));
}

}  // namespace

std::vector<VerifySample> samples_of_hashes(std::span<const double> pitch,
                                            std::span<const double> shift,
                                            std::span<const std::int64_t> trial, std::int64_t n) {
  if (shift.size() != pitch.size())
    throw ArgumentError("shift", fmt::format("must have the length of pitch ({})", pitch.size()),
                        fmt::format("{} values", shift.size()));
  check_trial_length(trial, pitch.size(), "pitch");
  std::vector<VerifySample> out;
  out.reserve(pitch.size());
  for (std::size_t k = 0; k < pitch.size(); ++k) {
    if (!std::isfinite(pitch[k]) || !(pitch[k] > 0))
      throw ArgumentError("pitch", "must be finite and > 0 at every index",
                          fmt::format("{} at index {}", format_value(pitch[k]), k));
    if (!std::isfinite(shift[k]))
      throw ArgumentError("shift", "must be finite at every index",
                          fmt::format("{} at index {}", format_value(shift[k]), k));
    out.push_back(sample_of_hash({pitch[k], shift[k]}, n, trial_at(trial, k)));
  }
  return interleave_trials(std::move(out));
}

void check_partition(std::span<const std::int64_t> starts, std::int64_t n, std::size_t index) {
  const auto refuse = [&](const std::string& got) {
    throw ArgumentError("starts",
                        fmt::format("must each be a partition of [0, n = {}): 0 = starts[k][0] < "
                                    "starts[k][1] < ... < starts[k][-1] = n",
                                    n),
                        fmt::format("{} in starts[{}]", got, index));
  };
  if (starts.size() < 2) refuse(fmt::format("{} values", starts.size()));
  if (starts.front() != 0) refuse(fmt::format("first value {}", starts.front()));
  if (starts.back() != n) refuse(fmt::format("last value {}", starts.back()));
  for (std::size_t b = 1; b < starts.size(); ++b)
    if (starts[b] <= starts[b - 1])
      refuse(fmt::format("{} after {} at index {}", starts[b], starts[b - 1], b));
}

std::vector<VerifySample> samples_of_partitions(
    const std::vector<std::vector<std::int64_t>>& starts, std::span<const std::int64_t> trial,
    std::int64_t n) {
  check_trial_length(trial, starts.size(), "starts");
  std::vector<VerifySample> out;
  out.reserve(starts.size());
  for (std::size_t k = 0; k < starts.size(); ++k) {
    check_partition(starts[k], n, k);
    out.push_back(sample_of_partition(starts[k], n, trial_at(trial, k)));
  }
  return interleave_trials(std::move(out));
}

void check_verify_options(const VerifyOptions& o, std::int64_t max_n) {
  check::at_least("n", o.n, 4);
  if (o.n > max_n)
    throw ArgumentError("n", fmt::format("must be at most {}", max_n), std::to_string(o.n));
  check::positive_finite("sigma", o.sigma);
  check::at_least("batch", o.batch, 1);
  check::at_least("points", o.points, 1);
  check::open_unit("alpha", o.alpha);
}

// ---- the checks ----------------------------------------------------------------

std::vector<VerifySample> interleave_trials(std::vector<VerifySample> samples) {
  return interleave_by_trial(std::move(samples));
}

PitchBounds pitch_bounds_from_blocks(std::int64_t blocks, std::int64_t first_length,
                                     std::int64_t last_start, std::int64_t last_length,
                                     std::int64_t largest_block) {
  const double edge = static_cast<double>(std::max(first_length, last_length) - 1);
  if (blocks <= 2) return {edge, INFINITY};
  const auto m = static_cast<double>(blocks - 2);
  const auto span = static_cast<double>(last_start - first_length);
  const double lo = largest_block == 1 ? 0.0 : (span - 1) / m;
  return {std::max(lo, edge), (span + 1) / m};
}

namespace {

// As for `poslsh blocksize` tables: a chi-square fit on fewer samples says little.
constexpr std::int64_t kMinLawSamples = 100;

// Cut points c sigma of the pitch law test, dense in the tail.
constexpr double kPitchCuts[] = {0.25, 0.5, 1, 2, 3, 4, 6, 8, 10, 12, 14, 16};
constexpr double kPitchCap = 10;  // the stated defect: pitches redrawn above 10 sigma
constexpr std::size_t kNumPitchCuts = std::size(kPitchCuts);

CheckOutcome law_outcome(const std::vector<VerifySample>& samples, const VerifyOptions& o,
                         double level) {
  const BlockSizeLaw law(o.n, o.sigma, 1);
  const std::int64_t count = static_cast<std::int64_t>(samples.size());
  const std::string name = fmt::format("law[n={},sigma={},s=1]", o.n, format_value(o.sigma));
  if (count < kMinLawSamples)
    return {name, Verdict::kNotApplicable, fmt::format("{} samples < {}", count, kMinLawSamples)};
  if (!law_applies(o.n, o.sigma, 1, count))
    return {name, Verdict::kNotApplicable,
            fmt::format("n too small for the law F(b): samples x E[pitch]/(2n) = {:.3g} > 0.5",
                        static_cast<double>(count) * law_deviation_rate(o.n, o.sigma, 1))};
  std::vector<std::int64_t> b_max;
  double total = 0;
  for (const auto& s : samples) {
    b_max.push_back(s.b_max);
    total += static_cast<double>(s.b_max);
  }
  const BlockSizeFit fit = block_size_fit(b_max, law);
  if (fit.cdf_cuts < 1)
    return {name, Verdict::kNotApplicable, "a single cell of expected count >= 5"};
  return {name, fit.cdf_p_value >= level ? Verdict::kPass : Verdict::kFail,
          fmt::format("{} samples: largest block of each vs its exact law F(b), empirical CDF at "
                      "{} cut points, exact binomial tails (Bonferroni over the cuts): p = {:.3g} "
                      "(worst at b = {}); needs >= {:.2g}; chi2 = {:.2f} (reported, not tested); "
                      "mean {:.3f} vs law {:.3f}",
                      count, fit.cdf_cuts, fit.cdf_p_value, fit.worst_cut, level,
                      fit.test.statistic, total / static_cast<double>(count), mean(law))};
}

// The fewest samples at which pitches capped at kPitchCap sigma (none above
// it) fail the pitch law test at `level`: 2 (1 - P(delta > cap))^H cuts <= level.
std::int64_t samples_to_catch_capped_pitch(double level) {
  const double above = tail(PitchLaw(1.0), kPitchCap);
  return static_cast<std::int64_t>(
      std::ceil(std::log(level / (2.0 * kNumPitchCuts)) / std::log1p(-above)));
}


// Where the pitches come from: hashes give them, blocks bound them.
std::string pitch_source(const std::vector<VerifySample>& samples) {
  if (samples.front().pitch_lo == samples.front().pitch_hi) return "pitches";
  std::vector<double> widths;
  for (const auto& s : samples)
    if (std::isfinite(s.pitch_hi)) widths.push_back(s.pitch_hi - s.pitch_lo);
  std::nth_element(widths.begin(), widths.begin() + widths.size() / 2, widths.end());
  return fmt::format(
      "pitches bounded by their blocks ({} with interior blocks, median width {:.3g})",
      widths.size(), widths[widths.size() / 2]);
}

CheckOutcome pitch_law_outcome(const std::vector<VerifySample>& samples, const VerifyOptions& o,
                               double level) {
  const std::string name = fmt::format("pitch-law[sigma={}]", format_value(o.sigma));
  if (std::none_of(samples.begin(), samples.end(),
                   [](const VerifySample& s) { return std::isfinite(s.pitch_hi); }))
    return {name, Verdict::kNotApplicable,
            "no sample bounds its pitch from above (no interior block: n is too small for sigma)"};
  const PitchLaw law(o.sigma);
  const auto total = static_cast<std::int64_t>(samples.size());
  double smallest = 2, worst_cut = 0, worst_observed = 0;
  for (const double c : kPitchCuts) {
    const double cut = c * o.sigma;
    std::int64_t surely = 0, possibly = 0;  // at most cut
    for (const auto& s : samples) surely += s.pitch_hi <= cut, possibly += s.pitch_lo <= cut;
    const double p = stats::censored_binomial_two_sided_p(surely, possibly, total, cdf(law, cut), tail(law, cut));
    if (p < smallest)
      smallest = p, worst_cut = c,
      worst_observed = static_cast<double>(total - possibly) / static_cast<double>(total);
  }
  const double p_value = std::min(1.0, smallest * static_cast<double>(kNumPitchCuts));
  return {name, p_value >= level ? Verdict::kPass : Verdict::kFail,
          fmt::format("{} {} vs Gamma(2, sigma): empirical CDF at {} cut points c sigma, "
                      "c = 0.25..16, exact binomial tails (Bonferroni over the cuts): p = {:.3g} "
                      "(worst at {} sigma: fraction above {:.4g} vs law {:.4g}); needs >= {:.2g}; "
                      "pitches capped at {} sigma fail from {} samples",
                      total, pitch_source(samples), kNumPitchCuts, p_value, format_value(worst_cut),
                      worst_observed, tail(law, worst_cut * o.sigma), level,
                      format_value(kPitchCap), samples_to_catch_capped_pitch(level))};
}

// The offset whose co-binning probability is nearest 1/2 (largest variance).
std::int64_t half_offset(const std::vector<std::int64_t>& offsets, double sigma) {
  std::int64_t best = offsets.front();
  for (const auto t : offsets)
    if (std::abs(cobin_probability(sigma, t) - 0.5) <
        std::abs(cobin_probability(sigma, best) - 0.5))
      best = t;
  return best;
}

// Batch sizes 2, 4, ... with at least 4 whole batches of the samples.
std::vector<std::int64_t> lag_batches(std::int64_t samples) {
  std::vector<std::int64_t> m;
  for (std::int64_t b = 2; samples / b >= 4; b *= 2) m.push_back(b);
  return m;
}

}  // namespace

std::int64_t lag_test_offset(std::int64_t n, double sigma, int points) {
  return half_offset(cobin_offsets(n, sigma, points), sigma);
}

std::vector<CheckOutcome> lag_dispersion_outcomes(const std::vector<std::vector<bool>>& cobinned,
                                                  const std::vector<std::string>& anchors,
                                                  std::int64_t n, double sigma, std::int64_t t,
                                                  double alpha) {
  const std::int64_t samples = cobinned.empty() ? 0 : static_cast<std::int64_t>(cobinned[0].size());
  const auto batches = lag_batches(samples);
  const double p = cobin_probability(sigma, t);
  const double level =
      alpha / static_cast<double>(anchors.size() * std::max<std::size_t>(1, batches.size()));
  std::vector<CheckOutcome> out;
  for (std::size_t a = 0; a < anchors.size(); ++a) {
    const std::string name =
        fmt::format("dispersion-lags[n={},sigma={},{}]", n, format_value(sigma), anchors[a]);
    if (batches.empty()) {
      out.push_back({name, Verdict::kNotApplicable, "fewer than 8 samples"});
      continue;
    }
    double worst_p = 2, worst_ratio = 1;
    std::int64_t worst_m = 0;
    for (const std::int64_t m : batches) {
      const std::int64_t used = samples / m * m;
      std::int64_t total = 0, sumsq = 0, current = 0;
      for (std::int64_t i = 0; i < used; ++i) {
        current += cobinned[a][static_cast<std::size_t>(i)];
        if ((i + 1) % m != 0) continue;
        total += current;
        sumsq += current * current;
        current = 0;
      }
      const stats::DispersionTest d = stats::dispersion_statistic(total, sumsq, used, m, p);
      if (d.p_value < worst_p) worst_p = d.p_value, worst_ratio = d.ratio, worst_m = m;
    }
    out.push_back({name, worst_p >= level ? Verdict::kPass : Verdict::kFail,
                   fmt::format("{} samples, offset t = {} (p = {:.3f}) over batches of 2..{} "
                               "consecutive samples ({} sizes, >= 4 batches each): most extreme at "
                               "batch {}: batch variance / binomial = {:.4f}, Chernoff p = {:.3g}; "
                               "needs >= {:.2g} (family-wise {:.2g} over {} tests)",
                               samples, t, p, batches.back(), batches.size(), worst_m, worst_ratio,
                               worst_p, level, alpha, batches.size() * anchors.size())});
  }
  return out;
}

namespace {

std::vector<CheckOutcome> sample_lag_outcomes(const std::vector<VerifySample>& samples,
                                              const VerifyOptions& o, double alpha) {
  const std::int64_t t = lag_test_offset(o.n, o.sigma, o.points);
  std::vector<std::vector<bool>> cobinned(all_cobin_regions().size());
  std::vector<std::string> names;
  for (std::size_t a = 0; a < all_cobin_regions().size(); ++a) {
    names.push_back(cobin_region_name(all_cobin_regions()[a]));
    for (const auto& s : samples) cobinned[a].push_back(t < s.runs[a]);
  }
  return lag_dispersion_outcomes(cobinned, names, o.n, o.sigma, t, alpha);
}

}  // namespace

VerifyReport verify_sparse(const SparseSamples& samples, const VerifyOptions& o) {
  if (static_cast<std::int64_t>(samples.runs.size()) < o.batch)
    throw InputError(fmt::format("{} samples: the checks need at least one batch of {}",
                                 samples.runs.size(), o.batch));
  VerifyReport report;
  report.trials = static_cast<std::int64_t>(
      std::set<std::int64_t>(samples.trials.begin(), samples.trials.end()).size());
  const auto offsets = cobin_offsets(o.n, o.sigma, o.points);
  const std::int64_t lag_t = lag_test_offset(o.n, o.sigma, o.points);
  std::vector<CobinGroup> groups;
  std::vector<std::vector<bool>> lag_bits(samples.anchors.size());
  std::vector<std::string> names;
  // Offsets are at most n / 2 - 1, and anchors above n / 2 are read backward:
  // every offset stays in [0, n) from every anchor.
  for (std::size_t j = 0; j < samples.anchors.size(); ++j) {
    CobinCounts counts(offsets, o.batch);
    for (const auto& s : samples.runs) {
      counts.add_run(s[j]);
      lag_bits[j].push_back(lag_t < s[j]);
    }
    names.push_back("at-" + std::to_string(samples.anchors[j]));
    groups.push_back(cobin_group(o.n, o.sigma, names.back(), counts));
    report.samples = counts.hashes();
  }
  report.outcomes = check_cobin_groups(groups, 0.9 * o.alpha);
  report.detectable_scale = detectable_scale_error(
      offsets, report.samples, o.sigma, cobin_scale_level(0.9 * o.alpha, names.size()), 0.99);
  for (auto& line : lag_dispersion_outcomes(lag_bits, names, o.n, o.sigma, lag_t, 0.1 * o.alpha))
    report.outcomes.push_back(std::move(line));
  return report;
}

VerifyReport verify_samples(const std::vector<VerifySample>& samples, const VerifyOptions& o) {
  if (static_cast<std::int64_t>(samples.size()) < o.batch)
    throw InputError(fmt::format("{} samples: the checks need at least one batch of {}",
                                 samples.size(), o.batch));
  VerifyReport report;
  std::set<std::int64_t> trials;
  for (const auto& s : samples) trials.insert(s.trial);
  report.trials = static_cast<std::int64_t>(trials.size());
  // Alpha (Bonferroni): three quarters to the co-binning families, the rest to
  // the block-size law, the pitch law and dependence across scales.
  const double cobin_alpha = 0.75 * o.alpha, law_alpha = 0.1 * o.alpha,
               pitch_alpha = 0.075 * o.alpha, lags_alpha = 0.075 * o.alpha;
  const auto offsets = cobin_offsets(o.n, o.sigma, o.points);
  std::vector<CobinGroup> groups;
  for (int a = 0; a < 3; ++a) {
    CobinCounts counts(offsets, o.batch);
    for (const auto& s : samples) counts.add_run(s.runs[a]);
    groups.push_back(cobin_group(o.n, o.sigma, cobin_region_name(all_cobin_regions()[a]), counts));
    report.samples = counts.hashes();
  }
  report.outcomes = check_cobin_groups(groups, cobin_alpha);
  report.detectable_scale =
      detectable_scale_error(offsets, report.samples, o.sigma,
                             cobin_scale_level(cobin_alpha, all_cobin_regions().size()), 0.99);
  for (auto& line : sample_lag_outcomes(samples, o, lags_alpha))
    report.outcomes.push_back(std::move(line));
  report.outcomes.push_back(law_outcome(samples, o, law_alpha));
  report.outcomes.push_back(pitch_law_outcome(samples, o, pitch_alpha));
  return report;
}
}  // namespace poslsh
