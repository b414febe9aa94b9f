// `poslsh bench blocksize`: time per hash of the exact largest-block scan
// (include/poslsh/block_size.h) at n up to 2^50, with the work it counts (bins measured
// with bin(), runs decided in closed form), and, at a small n, side by side
// with the block-by-block oracle largest_block(), whose answers it must equal.
#include <fmt/format.h>
#include <poslsh/block_size.h>
#include <poslsh/positional_hash.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <memory>
#include <span>
#include <vector>

#include "experiments/bench_timing.h"
#include "experiments/experiment.h"
#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/csv_writer.h"

namespace poslsh {

// A named namespace, not an anonymous one: the runner is a unity build.
namespace blocksize_bench {

struct BlocksizeBenchOptions {
  std::vector<std::int64_t> n = {std::int64_t{1} << 30, std::int64_t{1} << 40,
                                 std::int64_t{1} << 47, std::int64_t{1} << 50};
  double sigma = 16.0;
  std::int64_t hashes = 100000, repeats = 3, oracle_n = std::int64_t{1} << 20, oracle_hashes = 1000;
  std::uint64_t seed = 0;
  int threads = 0;  // accepted for `poslsh reproduce`; the timing is single-threaded
  std::string out;
};

std::string power_of_two(std::int64_t n) {
  return (n & (n - 1)) == 0 ? fmt::format("2^{}", std::countr_zero(static_cast<std::uint64_t>(n)))
                            : std::to_string(n);
}

void validate_blocksize_bench(const BlocksizeBenchOptions& o) {
  require_nonempty("--n", o.n.size());
  for (const std::int64_t n : o.n) {
    if (n < 1 || n > (std::int64_t{1} << 50))
      throw UsageError(fmt::format("--n must lie in [1, 2^50] (got {})", n));
  }
  require_positive_finite("--sigma", o.sigma);
  require_at_least("--hashes", o.hashes, 1);
  require_at_least("--repeats", o.repeats, 1);
  require_at_least("--oracle-n", o.oracle_n, 0);
  require_at_least("--oracle-hashes", o.oracle_hashes, 1);
  if (o.oracle_n > (std::int64_t{1} << 24))
    throw UsageError(fmt::format("--oracle-n must be at most 2^24 (got {})", o.oracle_n));
}

// The scan's time per hash at n and the work it counts: one printed line and
// one table row. `sink` keeps the timed loop from being optimised away.
void time_scan(const BlocksizeBenchOptions& o, const std::vector<PositionalHash>& hashes,
               std::int64_t n, CsvWriter& table, std::int64_t& sink) {
  const double secs = best_time(o.repeats, [&] {
    for (const auto& h : hashes) sink += scan_largest_block(h, n).size;
  });
  std::int64_t bins = 0, runs = 0, worst = 0, above = 0;
  for (const auto& h : hashes) {
    const LargestBlockScan scan = scan_largest_block(h, n);
    bins += scan.bins_measured;
    runs += scan.runs;
    worst = std::max(worst, scan.bins_measured + scan.runs);
    if (h.pitch >= 0.5 && scan.size < n &&
        scan.size > static_cast<std::int64_t>(std::ceil(h.pitch)))
      ++above;
  }
  const double count = static_cast<double>(o.hashes);
  fmt::print(bench_report(o.out), "{:>6} {:>18} {:>10.1f} {:>10.2f} {:>10.2f} {:>11} {:>14}\n", power_of_two(n),
             fmt::format("({})", n), secs / count * 1e9, static_cast<double>(bins) / count,
             static_cast<double>(runs) / count, worst, above);
  table.row_of(n, o.sigma, o.hashes, secs / count, static_cast<double>(bins) / count,
               static_cast<double>(runs) / count, worst, above);
}

// At --oracle-n, the scan side by side with the every-block oracle. Returns
// whether every answer agreed.
bool compare_with_oracle(const BlocksizeBenchOptions& o, const std::vector<PositionalHash>& hashes,
                         std::int64_t& sink) {
  const std::int64_t m = std::min(o.oracle_hashes, o.hashes);
  const std::span<const PositionalHash> some(hashes.data(), static_cast<std::size_t>(m));
  std::int64_t agree = 0;
  for (const auto& h : some)
    agree += scan_largest_block(h, o.oracle_n).size == largest_block(h, o.oracle_n) ? 1 : 0;
  const double t_scan = best_time(o.repeats, [&] {
    for (const auto& h : some) sink += scan_largest_block(h, o.oracle_n).size;
  });
  const double t_oracle = best_time(1, [&] {
    for (const auto& h : some) sink += largest_block(h, o.oracle_n);
  });
  fmt::print(bench_report(o.out), 
      "at n={}: scan {:.1f} ns/hash, every block with bin() (largest_block) {:.0f} ns/hash "
      "({:.0f}x); {} of {} answers equal\n",
      power_of_two(o.oracle_n), t_scan / static_cast<double>(m) * 1e9,
      t_oracle / static_cast<double>(m) * 1e9, t_oracle / t_scan, agree, m);
  return agree == m;
}

int run_blocksize_bench(const BlocksizeBenchOptions& o) {
  validate_blocksize_bench(o);
  std::unique_ptr<AtomicFile> file;
  CsvWriter table({"n", "sigma", "hashes", "seconds_per_hash", "mean_bins_measured", "mean_runs",
                   "worst_work", "above_ceil_pitch"});
  if (!o.out.empty()) file = std::make_unique<AtomicFile>(o.out, "--out");  // fails early
  // Hash t of the bench is hash 0 of trial t, as `poslsh blocksize --s 1` draws them.
  std::vector<PositionalHash> hashes;
  hashes.reserve(static_cast<std::size_t>(o.hashes));
  for (std::int64_t t = 0; t < o.hashes; ++t)
    hashes.push_back(draw_hash(o.seed, static_cast<std::uint64_t>(t), 0, o.sigma));

  fmt::print(bench_report(o.out), "bench blocksize: sigma={}, {} drawn hashes per n (seed {}), one thread, best of {}\n",
             format_value(o.sigma), o.hashes, o.seed, o.repeats);
  fmt::print(bench_report(o.out), "{:>6} {:>18} {:>10} {:>10} {:>10} {:>11} {:>14}\n", "n", "", "ns/hash", "bins/hash",
             "runs/hash", "worst work", "b>ceil(pitch)");
  std::int64_t sink = 0;
  for (const std::int64_t n : o.n) time_scan(o, hashes, n, table, sink);
  const int rc = o.oracle_n > 0 && !compare_with_oracle(o, hashes, sink) ? 1 : 0;
  if (file) {
    file->write(table.take());
    file->commit();
    fmt::print(bench_report(o.out), "wrote {}\n", o.out);
  }
  return sink < 0 ? 1 : rc;  // sink keeps the timed loops from being optimised away
}

Action add_blocksize_bench(CLI::App& bench) {
  auto o = std::make_shared<BlocksizeBenchOptions>();
  auto* cmd = bench.add_subcommand(
      "blocksize", "Time per hash of the exact b_max scan at n up to 2^50, vs every block");
  cmd->add_option("--n", o->n, "Context lengths (list, each in [1, 2^50])")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--sigma", o->sigma, "ALiBi scale (pitch ~ Gamma(2, sigma))")
      ->capture_default_str();
  cmd->add_option("--hashes", o->hashes, "Drawn hashes timed per n")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "Timed repetitions (best kept)")->capture_default_str();
  cmd->add_option("--oracle-n", o->oracle_n,
                  "n of the side-by-side run with the every-block oracle (0: none, <= 2^24)")
      ->capture_default_str();
  cmd->add_option("--oracle-hashes", o->oracle_hashes, "Hashes in the side-by-side run")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Accepted for `poslsh reproduce`; timing uses one")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Also write the table as CSV (atomically)");
  return [o] { return run_blocksize_bench(*o); };
}

const bool registered_blocksize_bench = register_experiment({
    .name = "blocksize",
    .summary = "Largest block b_max",
    .add_command = nullptr,
    .add_bench = add_blocksize_bench,
    .checker = {},
});

}  // namespace blocksize_bench

}  // namespace poslsh
