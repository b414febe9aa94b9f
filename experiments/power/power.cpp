// `poslsh power`: the sweep of (defect, seed) cells, its options and its
// registration; the cells are power_sweep.cpp, the checks power_checks.cpp,
// the summary and report section power_report.cpp.
#include "experiments/power/power.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <set>
#include <stdexcept>

#include "experiments/hash_law/hash_law.h"
#include "runner/cli_common.h"
#include "runner/swept_experiment.h"

namespace poslsh {

namespace power_experiment {  // named: the runner is a unity build

void add_power_family_options(CLI::App& cmd, PowerSizes& z) {
  cmd.add_option("--unbiasedness-n", z.unbiasedness_n, "unbiasedness family: n (empty: off)")
      ->delimiter(',');
  cmd.add_option("--unbiasedness-sigma", z.unbiasedness_sigma, "unbiasedness family: sigma")
      ->delimiter(',');
  cmd.add_option("--unbiasedness-hashes", z.unbiasedness_hashes, "unbiasedness family: hashes")
      ->capture_default_str();
  cmd.add_option("--unbiasedness-batch", z.unbiasedness_batch, "unbiasedness family: batch")
      ->capture_default_str();
  cmd.add_option("--unbiasedness-points", z.unbiasedness_points, "unbiasedness family: offsets")
      ->capture_default_str();
  cmd.add_option("--lags-n", z.lags_n, "lags family: n (empty: off)")->delimiter(',');
  cmd.add_option("--lags-sigma", z.lags_sigma, "lags family: sigma")->delimiter(',');
  cmd.add_option("--lags-hashes", z.lags_hashes, "lags family: hashes (>= 8)")
      ->capture_default_str();
  cmd.add_option("--blocksize-n", z.blocksize_n, "blocksize family: n (empty: off)")
      ->delimiter(',');
  cmd.add_option("--blocksize-sigma", z.blocksize_sigma, "blocksize family: sigma")->delimiter(',');
  cmd.add_option("--blocksize-s", z.blocksize_s, "blocksize family: fixed s")->delimiter(',');
  cmd.add_option("--blocksize-s-log", z.blocksize_s_log, "blocksize family: c in s = ceil(c ln n)")
      ->delimiter(',');
  cmd.add_option("--blocksize-trials", z.blocksize_trials, "blocksize family: trials")
      ->capture_default_str();
  cmd.add_option("--convergence-n", z.convergence_n, "convergence family: n (empty: off)")
      ->delimiter(',');
  cmd.add_option("--convergence-sigma", z.convergence_sigma, "convergence family: sigma")
      ->delimiter(',');
  cmd.add_option("--convergence-s", z.convergence_s, "convergence family: s")->delimiter(',');
  cmd.add_option("--convergence-trials", z.convergence_trials, "convergence family: trials")
      ->capture_default_str();
  cmd.add_option("--hash-law-sigma", z.hash_law_sigma, "hash-law family: sigma (empty: off)")
      ->delimiter(',');
  cmd.add_option("--hash-law-indices", z.hash_law_indices, "hash-law family: hash indices")
      ->capture_default_str();
  cmd.add_option("--hash-law-trials", z.hash_law_trials, "hash-law family: trials per index")
      ->capture_default_str();
  cmd.add_option("--p", z.p, "Failure probability of the bounds, in (0, 1)")->capture_default_str();
}

// Throws UsageError naming the first option whose value the families cannot use.
void validate_power_sizes(const PowerSizes& z) {
  if (z.unbiasedness_n.empty() && z.blocksize_n.empty() && z.convergence_n.empty() &&
      z.lags_n.empty() && z.hash_law_sigma.empty())
    throw UsageError(
        "--unbiasedness-n, --lags-n, --blocksize-n, --convergence-n or --hash-law-sigma: at least "
        "one family needs sizes");
  require_positive_finite("--hash-law-sigma", z.hash_law_sigma);
  require_hash_law_sigma("--hash-law-sigma", z.hash_law_sigma);
  require_at_least("--hash-law-indices", z.hash_law_indices, 1);
  require_at_least("--hash-law-trials", z.hash_law_trials, 1);
  if (z.hash_law_indices > (std::int64_t{1} << 20) || z.hash_law_trials > (std::int64_t{1} << 30) ||
      z.hash_law_indices * z.hash_law_trials > (std::int64_t{1} << 26))
    throw UsageError(
        "--hash-law-indices at most 2^20, --hash-law-trials at most 2^30, and their product at "
        "most 2^26 (the duplicate search holds 32 bytes a hash)");
  require_at_least("--lags-n", z.lags_n, 4);
  require_positive_finite("--lags-sigma", z.lags_sigma);
  require_at_least("--lags-hashes", z.lags_hashes, 8);
  require_at_least("--unbiasedness-n", z.unbiasedness_n, 4);
  require_positive_finite("--unbiasedness-sigma", z.unbiasedness_sigma);
  require_at_least("--unbiasedness-batch", z.unbiasedness_batch, 1);
  require_at_least("--unbiasedness-points", z.unbiasedness_points, 1);
  if (z.unbiasedness_hashes < z.unbiasedness_batch ||
      z.unbiasedness_hashes % z.unbiasedness_batch != 0)
    throw UsageError("--unbiasedness-hashes must be a positive multiple of --unbiasedness-batch");
  require_at_least("--blocksize-n", z.blocksize_n, 1);
  require_positive_finite("--blocksize-sigma", z.blocksize_sigma);
  require_at_least("--blocksize-s", z.blocksize_s, 1);
  require_positive_finite("--blocksize-s-log", z.blocksize_s_log);
  require_at_least("--blocksize-trials", z.blocksize_trials, 1);
  require_at_least("--convergence-n", z.convergence_n, 2);
  require_positive_finite("--convergence-sigma", z.convergence_sigma);
  require_at_least("--convergence-s", z.convergence_s, 1);
  require_at_least("--convergence-trials", z.convergence_trials, 1);
  require_open_unit("--p", z.p);
  for (const auto& [name, n, sigma] :
       {std::tuple{"--unbiasedness", z.unbiasedness_n.size(), z.unbiasedness_sigma.size()},
        std::tuple{"--lags", z.lags_n.size(), z.lags_sigma.size()},
        std::tuple{"--blocksize", z.blocksize_n.size(), z.blocksize_sigma.size()},
        std::tuple{"--convergence", z.convergence_n.size(), z.convergence_sigma.size()}})
    if ((n == 0) != (sigma == 0))
      throw UsageError(fmt::format("{}-n and {}-sigma: give both or neither", name, name));
  if (!z.blocksize_n.empty() && z.blocksize_s.empty() && z.blocksize_s_log.empty())
    throw UsageError("--blocksize-s or --blocksize-s-log needs a value");
  if (!z.convergence_n.empty() && z.convergence_s.empty())
    throw UsageError("--convergence-s needs a value");
}

std::vector<PlantedDefect> parse_defect_option(const std::vector<std::string>& names) {
  std::vector<PlantedDefect> defects;
  try {
    for (const auto& name : names) defects.push_back(parse_planted_defect(name));
  } catch (const InputError& e) {
    throw UsageError(std::string("--defects: ") + e.what());
  }
  for (const auto& d : defects)
    if (d.estimator_bug != EstimatorBug::kNone)
      throw UsageError(fmt::format(
          "--defects: {} is an estimator bug, which no power family computes (the attention "
          "checks' estimator line catches it)",
          d.name()));
  if (defects.empty()) defects = all_planted_defects();
  return defects;
}

struct PowerCell {
  std::size_t defect;  // index into the defects run
  std::uint64_t seed;
};

// Sweep cells are (defect, seed); the summary is power_summary_csv.
class Power : public SweptExperiment<PowerCell> {
 public:
  void declare_options(CLI::App& cmd) override {
    std::string names;
    for (const auto& d : all_planted_defects()) names += (names.empty() ? "" : ", ") + d.name();
    cmd.add_option("--defects", defect_names_, "Samplers to run (default: all of " + names + ")")
        ->delimiter(',');
    cmd.add_option("--seeds", seeds_, "Seeds per sampler (>= 1)")->capture_default_str();
    cmd.add_option("--seed", seed_, "First seed; sampler runs use seed, seed+1, ...")
        ->capture_default_str();
    add_power_family_options(cmd, sizes_);
  }

  void validate(CLI::App&, const SweepOptions&) override {
    defects_ = parse_defect_option(defect_names_);
    require_at_least("--seeds", seeds_, 1);
    validate_power_sizes(sizes_);
  }

  std::vector<std::string> columns() const override { return power_columns(); }

  std::vector<PowerCell> cells() const override {
    std::vector<PowerCell> cells;
    for (std::size_t d = 0; d < defects_.size(); ++d)
      for (std::int64_t k = 0; k < seeds_; ++k)
        cells.push_back({d, seed_ + static_cast<std::uint64_t>(k)});
    return cells;
  }

  std::vector<CsvRow> rows(const PowerCell& x) const override {
    return power_cell_rows(defects_[x.defect], x.seed, sizes_);
  }

  std::string label(const PowerCell& x) const override {
    return fmt::format("{} seed={}", defects_[x.defect].name(), x.seed);
  }

  std::uint64_t seed() const override { return seed_; }

  // Without the hash-law family its sizes say nothing: left out, so a run
  // without it records the config it had before the family existed.
  RecordedOptions recorded_options(const CLI::App&) const override {
    RecordedOptions recorded;
    if (sizes_.hash_law_sigma.empty())
      recorded.omitted = {"hash-law-indices", "hash-law-trials"};
    return recorded;
  }

 private:
  std::vector<std::string> defect_names_;
  std::int64_t seeds_ = 20;
  std::uint64_t seed_ = 1000;
  PowerSizes sizes_;
  std::vector<PlantedDefect> defects_;
};

Action add_power_command(CLI::App& parent) {
  return swept_command(
      parent, "power",
      "False-alarm and detection rates of every check on sound and planted-defect samplers",
      std::make_shared<Power>(), power_summary_csv);
}

const bool registered_power = register_experiment({
    .name = "power",
    .summary =
        "False-alarm and detection rates of every check on sound and planted-defect samplers",
    .add_command = add_power_command,
    .add_bench = {},
    .checker = {.required_columns = power_columns(),
                .run = [](const CsvTable& t, double alpha) { return check_power_table(t, alpha); }},
    .summarize = power_summary_csv,
    .report_section = add_power_report_section,
});

}  // namespace power_experiment

}  // namespace poslsh

