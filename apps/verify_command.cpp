// `poslsh verify --blocks FILE | --hashes FILE | --sparse FILE --n N --sigma S`: the checks of
// experiments/verify/verification.h on another implementation's samples, read by
// experiments/verify/verify.h (the Python module's verify_hashes and verify_blocks
// run the same checks on arrays). Exit 0: all pass; 1: a check failed; 2:
// unusable input (the file or an option).
#include <fmt/format.h>
#include <poslsh/input_error.h>

#include <memory>

#include "commands.h"
#include "experiments/checks/check_tally.h"
#include "experiments/verify/verify.h"
#include "runner/cli_common.h"

namespace poslsh {

namespace verify_command {

constexpr std::int64_t kMaxVerifyN = std::int64_t{1} << 53;

struct Options {
  std::string blocks, hashes, sparse;
  bool strict = false;
  VerifyOptions verify;
};

// Throws UsageError for options the checks cannot use, naming the option.
void validate(const Options& o) {
  if (int{!o.blocks.empty()} + int{!o.hashes.empty()} + int{!o.sparse.empty()} != 1)
    throw UsageError("give exactly one of --blocks FILE, --hashes FILE and --sparse FILE");
  require_at_least("--n", o.verify.n, 4);
  require_positive_finite("--sigma", o.verify.sigma);
  require_at_least("--batch", o.verify.batch, 1);
  require_at_least("--points", o.verify.points, 1);
  // Positions are exact in a double up to 2^53; bins computed from a hash in
  // double drift from the exact ones beyond 2^50 (experiments/unbiasedness/unbiasedness.h).
  const std::int64_t max_n = o.hashes.empty() ? kMaxVerifyN : std::int64_t{1} << 50;
  if (o.verify.n > max_n)
    throw UsageError(fmt::format(
        "--n: at most {} with {}, got {}", max_n,
        o.hashes.empty() ? "--blocks or --sparse (2^53)" : "--hashes (2^50)", o.verify.n));
}

// Reads the one input file and runs the checks on it; unusable input is a
// UsageError naming the option and the file.
VerifyReport read_and_verify(const Options& o) {
  const bool by_blocks = !o.blocks.empty(), by_sparse = !o.sparse.empty();
  const std::string option = by_blocks ? "--blocks" : by_sparse ? "--sparse" : "--hashes";
  const std::string& path = by_blocks ? o.blocks : by_sparse ? o.sparse : o.hashes;
  try {
    const CsvTable table = CsvTable::read(path);
    if (by_sparse) return verify_sparse(samples_from_sparse(table, o.verify.n), o.verify);
    return verify_samples(
        by_blocks ? samples_from_blocks(table, o.verify.n) : samples_from_hashes(table, o.verify.n),
        o.verify);
  } catch (const InputError& e) {
    throw UsageError(fmt::format("{} '{}': {}", option, path, e.what()));
  }
}

}  // namespace verify_command

Action add_verify_command(CLI::App& app) {
  using verify_command::Options;
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "verify",
      "Run the co-binning, dispersion (every batch scale), block-size and pitch-law checks on "
      "another sampler's output");
  auto* blocks = cmd->add_option(
      "--blocks", o->blocks,
      "CSV [trial,]sample,start,end (end exclusive), every sample a partition of [0, n), as "
      "written by `poslsh sample --blocks`; with a trial column, the trials (each the same "
      "number of samples) are interleaved before batching");
  auto* hashes = cmd->add_option(
      "--hashes", o->hashes,
      "CSV [trial,]sample,pitch,shift with bin(i) = floor((i - shift) / pitch), as written by "
      "`poslsh sample`; trials as for --blocks");
  auto* sparse = cmd->add_option(
      "--sparse", o->sparse,
      "CSV trial,sample,anchor,start,end: per sample only the block [start, end) holding each "
      "anchor (the same anchors for every sample); co-binning at those anchors, for n up to 2^53");
  blocks->excludes(hashes);
  blocks->excludes(sparse);
  hashes->excludes(sparse);
  cmd->add_option("--n", o->verify.n, "Context length the samples cover (>= 4)")->required();
  cmd->add_option("--sigma", o->verify.sigma, "The ALiBi scale the sampler targets (> 0)")
      ->required();
  cmd->add_option("--batch", o->verify.batch,
                  "Consecutive samples per batch of the dispersion test (>= 1)")
      ->capture_default_str();
  cmd->add_option("--points", o->verify.points, "Offsets t tested, spread over [1, 6 sigma]")
      ->capture_default_str();
  cmd->add_flag("--strict", o->strict,
                "Exit 5 when a theorem family has lines that could not decide and none that did");
  return [o] {
    verify_command::validate(*o);
    const VerifyReport report = verify_command::read_and_verify(*o);
    const std::string of_trials =
        report.trials > 1 ? fmt::format(" of {} trials, interleaved,", report.trials) : "";
    fmt::print(
        "# {} ({} samples{} in whole batches of {}; the pooled scale test detects a "
        "kernel-scale error of {:.3g} with power 0.99)\n",
        o->blocks + o->hashes + o->sparse, report.samples, of_trials, o->verify.batch,
        report.detectable_scale);
    CheckTally tally;
    print_outcomes(report.outcomes, tally);
    print_tally(tally);
    if (tally.failed) return 1;
    return o->strict ? strict_exit_code(tally, "poslsh verify") : 0;
  };
}

}  // namespace poslsh
