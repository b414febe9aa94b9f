#include "experiments/blocksize.h"

#include <fmt/format.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/block_size.h>
#include <poslsh/block_size_law.h>
#include <poslsh/positional_hash.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <memory>

#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/sweep.h"

namespace poslsh {

const std::vector<std::string>& blocksize_columns() {
  static const std::vector<std::string> columns = {
      "n", "sigma", "s", "s_log_c", "trial", "max_pitch", "b_max", "b_max_bound", "p"};
  return columns;
}

std::int64_t SampleCount::s_at(std::int64_t n) const {
  if (fixed > 0) return fixed;
  const double s = std::max(1.0, std::ceil(log_c * std::log(static_cast<double>(n))));
  // Checked before the cast (a cast of an out-of-range double is UB).
  if (!(s <= 2147483647.0))
    throw UsageError(
        fmt::format("--s-log {} asks for ceil(c ln n) = {:.6g} hashes at n = {}; "
                    "at most 2^31 - 1 are accepted",
                    log_c, s, n));
  return static_cast<std::int64_t>(s);
}

std::vector<std::vector<std::string>> blocksize_cell_rows(std::int64_t n, double sigma,
                                                          const std::vector<SampleCount>& counts,
                                                          std::int64_t trials, std::uint64_t seed,
                                                          double p) {
  return blocksize_cell_rows(n, sigma, counts, trials, hash_drawer(seed), p);
}

std::vector<std::vector<std::string>> blocksize_cell_rows(std::int64_t n, double sigma,
                                                          const std::vector<SampleCount>& counts,
                                                          std::int64_t trials,
                                                          const HashDrawer& draw, double p) {
  std::int64_t s_max = 1;
  for (const auto& c : counts) s_max = std::max(s_max, c.s_at(n));
  const std::string n_text = std::to_string(n), sigma_text = format_double(sigma),
                    p_text = format_double(p);
  // Prefix maxima of block size and pitch per trial, over hashes k < s_max.
  std::vector<std::int64_t> prefix_block(static_cast<std::size_t>(trials * s_max));
  std::vector<double> prefix_pitch(prefix_block.size());
  for (std::int64_t t = 0; t < trials; ++t) {
    std::int64_t block = 0;
    double pitch = 0;
    for (std::int64_t k = 0; k < s_max; ++k) {
      const PositionalHash h =
          draw(static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(k), sigma);
      block = std::max(block, largest_block_size(h, n));
      pitch = std::max(pitch, h.pitch);
      prefix_block[static_cast<std::size_t>(t * s_max + k)] = block;
      prefix_pitch[static_cast<std::size_t>(t * s_max + k)] = pitch;
    }
  }
  std::vector<std::vector<std::string>> rows;
  rows.reserve(counts.size() * static_cast<std::size_t>(trials));
  for (const auto& c : counts) {
    const std::int64_t s = c.s_at(n);
    const std::string s_text = std::to_string(s);
    const std::string c_text = c.fixed > 0 ? "" : format_double(c.log_c);
    const std::string bound_text = std::to_string(b_max_bound(n, sigma, s, p));
    for (std::int64_t t = 0; t < trials; ++t) {
      const auto at = static_cast<std::size_t>(t * s_max + s - 1);
      rows.push_back({n_text, sigma_text, s_text, c_text, std::to_string(t),
                      format_double(prefix_pitch[at]), std::to_string(prefix_block[at]), bound_text,
                      p_text});
    }
  }
  return rows;
}

namespace {

Action add_blocksize_command(CLI::App& parent) {
  struct Options {
    std::vector<std::int64_t> n, s;
    std::vector<double> sigma, s_log;
    int alibi_heads = 0;
    bool independent_heads = false;
    std::int64_t trials = 1000;
    std::uint64_t seed = 0;
    double p = 0.01;
    SweepOptions sweep;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = parent.add_subcommand(
      "blocksize", "Largest block b_max vs its exact law F(b)^s and sigma ln ln n");
  cmd->add_option("--n", o->n, "Context lengths n (>= 1, <= 2^50)")->required()->delimiter(',');
  cmd->add_option("--sigma", o->sigma, "ALiBi scales sigma = 1/slope (> 0)")->delimiter(',');
  cmd->add_option("--alibi-heads", o->alibi_heads, alibi_heads_help(false));
  auto* independent_opt =
      cmd->add_flag("--independent-heads", o->independent_heads, kIndependentHeadsHelp);
  cmd->add_option("--s", o->s, "Fixed hash counts s (>= 1)")->delimiter(',');
  cmd->add_option("--s-log", o->s_log,
                  "Constants c (> 0) for s = ceil(c ln n), the count the uniform guarantee needs")
      ->delimiter(',');
  cmd->add_option("--trials", o->trials, "Independent hash sets per (n, sigma, s) (>= 1)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed (hashes are draw_hash(seed, trial, k, sigma))")
      ->capture_default_str();
  cmd->add_option("--p", o->p, "Failure probability of the b_max bound, in (0, 1)")
      ->capture_default_str();
  add_sweep_options(*cmd, o->sweep);
  return [o, cmd, independent_opt] {
    require_nonempty("--n", o->n.size());
    for (const auto n : o->n) {
      if (n < 1 || n > (std::int64_t{1} << 50))
        throw UsageError(fmt::format("--n must be integers in [1, 2^50] (got {})", n));
    }
    const bool by_heads = cmd->count("--alibi-heads") > 0;
    if (by_heads && !o->sigma.empty())
      throw UsageError("--sigma and --alibi-heads exclude each other (give one)");
    if (!by_heads && o->sigma.empty())
      throw UsageError("--sigma needs at least one value (or give --alibi-heads H)");
    require_heads_for_independent(o->independent_heads, by_heads);
    // Recorded only when set: "= false" would change the fingerprint of a shared run.
    if (!o->independent_heads) independent_opt->clear();
    const std::vector<double> sigmas = by_heads ? alibi_head_sigmas(o->alibi_heads) : o->sigma;
    require_positive_finite("--sigma", sigmas);
    if (o->s.empty() && o->s_log.empty())
      throw UsageError("--s or --s-log needs at least one value");
    require_at_least("--s", o->s, 1);
    require_positive_finite("--s-log", o->s_log);
    require_at_least("--trials", o->trials, 1);
    require_open_unit("--p", o->p);

    std::vector<SampleCount> counts;
    for (const auto s : o->s) counts.push_back({s, 0});
    for (const auto c : o->s_log) counts.push_back({0, c});
    Sweep sweep;
    sweep.experiment = "blocksize";
    sweep.columns = blocksize_columns();
    sweep.num_cells = o->n.size() * sigmas.size();
    const auto cell_params = [o, sigmas](std::size_t cell) {
      return std::pair{o->n[cell / sigmas.size()], sigmas[cell % sigmas.size()]};
    };
    sweep.label = [cell_params](std::size_t cell) {
      const auto [n, sigma] = cell_params(cell);
      return fmt::format("n={} sigma={}", n, format_double(sigma));
    };
    sweep.run_cell = [o, counts, cell_params, heads = sigmas.size()](std::size_t cell) {
      const auto [n, sigma] = cell_params(cell);
      const std::uint64_t seed = head_seed(o->seed, cell % heads, o->independent_heads);
      return blocksize_cell_rows(n, sigma, counts, o->trials, seed, o->p);
    };
    sweep.resolved_config =
        resolved_config(*cmd) + (by_heads ? alibi_heads_config_note(o->alibi_heads) : "");
    sweep.seed = o->seed;
    const int rc = run_sweep(sweep, o->sweep);
    if (rc != 0) return rc;
    // The summary is recomputed from the written table, so it always agrees with it.
    const CsvTable table = CsvTable::read(o->sweep.out);
    AtomicFile summary(summary_path(o->sweep.out), "--out");
    summary.write(blocksize_summary_csv(blocksize_cell_stats(table)));  // = .summarize
    summary.commit();
    return 0;
  };
}

const bool registered_blocksize = register_experiment({
    .name = "blocksize",
    .summary = "Largest block b_max vs its exact law F(b)^s and sigma ln ln n",
    .add_command = add_blocksize_command,
    .add_bench = {},
    .checker = {.required_columns = blocksize_columns(),
                .run = [](const CsvTable& t,
                          double alpha) { return check_blocksize_table(t, alpha); }},
    .summarize = [](const CsvTable& t) { return blocksize_summary_csv(blocksize_cell_stats(t)); },
});

}  // namespace

}  // namespace poslsh
