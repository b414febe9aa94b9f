// `poslsh verify --blocks FILE | --hashes FILE --n N --sigma S`: the checks of
// experiments/verify.h on another implementation's samples. Exit 0: all pass;
// 1: a check failed; 2: unusable input (the file or an option).
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "experiments/verify.h"
#include "runner/cli_common.h"

namespace poslsh {

Action add_verify_command(CLI::App& app) {
  struct Options {
    std::string blocks, hashes;
    VerifyOptions verify;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "verify",
      "Run the co-binning, dispersion (every batch scale), block-size and pitch-law checks on "
      "another sampler's output");
  auto* blocks = cmd->add_option(
      "--blocks", o->blocks,
      "CSV sample,start,end (end exclusive), every sample a partition of [0, n), as written by "
      "`poslsh sample --blocks`");
  auto* hashes = cmd->add_option(
      "--hashes", o->hashes,
      "CSV sample,pitch,shift with bin(i) = floor((i - shift) / pitch), as written by "
      "`poslsh sample`");
  blocks->excludes(hashes);
  cmd->add_option("--n", o->verify.n, "Context length the samples cover (>= 4)")->required();
  cmd->add_option("--sigma", o->verify.sigma, "The ALiBi scale the sampler targets (> 0)")
      ->required();
  cmd->add_option("--batch", o->verify.batch,
                  "Consecutive samples per batch of the dispersion test (>= 1)")
      ->capture_default_str();
  cmd->add_option("--points", o->verify.points, "Offsets t tested, spread over [1, 6 sigma]")
      ->capture_default_str();
  return [o] {
    if (o->blocks.empty() == o->hashes.empty())
      throw UsageError("give exactly one of --blocks FILE and --hashes FILE");
    require_at_least("--n", o->verify.n, 4);
    require_positive_finite("--sigma", o->verify.sigma);
    require_at_least("--batch", o->verify.batch, 1);
    require_at_least("--points", o->verify.points, 1);
    const bool by_blocks = !o->blocks.empty();
    const std::string option = by_blocks ? "--blocks" : "--hashes";
    const std::string& path = by_blocks ? o->blocks : o->hashes;
    VerifyReport report;
    try {
      const CsvTable table = CsvTable::read(path);
      const auto samples = by_blocks ? samples_from_blocks(table, o->verify.n)
                                     : samples_from_hashes(table, o->verify.n);
      report = verify_samples(samples, o->verify);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{} '{}': {}", option, path, e.what()));
    }
    fmt::print(
        "# {} ({} samples in whole batches of {}; the pooled scale test detects a "
        "kernel-scale error of {:.3g} with power 0.99)\n",
        path, report.samples, o->verify.batch, report.detectable_scale);
    CheckTally tally;
    print_outcomes(report.outcomes, tally);
    print_tally(tally);
    return tally.failed ? 1 : 0;
  };
}

}  // namespace poslsh
