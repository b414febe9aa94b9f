#include "experiments/blocksize/blocksize.h"

#include <fmt/format.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/block_size.h>
#include <poslsh/block_size_law.h>
#include <poslsh/positional_hash.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <memory>

#include "experiments/argument_flags.h"
#include "experiments/defects/planted_defect.h"
#include "runner/atomic_file.h"
#include "runner/cli_common.h"
#include "runner/sweep.h"
#include "runner/swept_experiment.h"

namespace poslsh {

const std::vector<std::string>& blocksize_columns() {
  static const std::vector<std::string> columns = {
      "n", "sigma", "s", "s_log_c", "trial", "max_pitch", "b_max", "b_max_bound", "p"};
  return columns;
}

std::int64_t SampleCount::s_at(std::int64_t n) const {
  if (!(log_c > 0)) return fixed;  // unchecked: HashParameters checks what this returns
  const double s = std::max(1.0, std::ceil(log_c * std::log(static_cast<double>(n))));
  // Checked before the cast (a cast of an out-of-range double is UB).
  if (!(s <= 2147483647.0))
    throw UsageError(
        fmt::format("--s-log {} asks for ceil(c ln n) = {:.6g} hashes at n = {}; "
                    "at most 2^31 - 1 are accepted",
                    log_c, s, n));
  return static_cast<std::int64_t>(s);
}

std::vector<HashParameters> blocksize_hash_parameters(std::int64_t n, double sigma,
                                                      const std::vector<SampleCount>& counts) {
  std::vector<HashParameters> hashes;
  hashes.reserve(counts.size());
  for (const auto& c : counts) hashes.emplace_back(n, sigma, c.s_at(n));
  return hashes;
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
  return blocksize_cell_rows(blocksize_hash_parameters(n, sigma, counts), counts, trials, draw, p);
}

namespace {

// Prefix maxima of block size and pitch per trial, over hashes k < s_max:
// element t * s_max + k holds the largest of hashes 0..k of trial t.
struct PrefixMaxima {
  std::vector<std::int64_t> block;
  std::vector<double> pitch;
};

PrefixMaxima prefix_maxima(const HashParameters& cell, std::int64_t s_max, std::int64_t trials,
                           const HashDrawer& draw) {
  PrefixMaxima m{std::vector<std::int64_t>(static_cast<std::size_t>(trials * s_max)), {}};
  m.pitch.resize(m.block.size());
  for (std::int64_t t = 0; t < trials; ++t) {
    std::int64_t block = 0;
    double pitch = 0;
    for (std::int64_t k = 0; k < s_max; ++k) {
      const PositionalHash h =
          draw(static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(k), cell.sigma());
      block = std::max(block, largest_block_size(h, cell.n()));
      pitch = std::max(pitch, h.pitch);
      m.block[static_cast<std::size_t>(t * s_max + k)] = block;
      m.pitch[static_cast<std::size_t>(t * s_max + k)] = pitch;
    }
  }
  return m;
}

}  // namespace

std::vector<std::vector<std::string>> blocksize_cell_rows(const std::vector<HashParameters>& hashes,
                                                          const std::vector<SampleCount>& counts,
                                                          std::int64_t trials,
                                                          const HashDrawer& draw, double p) {
  std::int64_t s_max = 1;
  for (const auto& h : hashes) s_max = std::max(s_max, h.s());
  const HashParameters& cell = hashes.front();
  const std::string n_text = std::to_string(cell.n()), sigma_text = format_value(cell.sigma()),
                    p_text = format_value(p);
  const PrefixMaxima prefix = prefix_maxima(cell, s_max, trials, draw);
  std::vector<std::vector<std::string>> rows;
  rows.reserve(counts.size() * static_cast<std::size_t>(trials));
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::int64_t s = hashes[i].s();
    const std::string s_text = std::to_string(s);
    const std::string c_text = !(counts[i].log_c > 0) ? "" : format_value(counts[i].log_c);
    const std::string bound_text = std::to_string(b_max_bound(hashes[i], p));
    for (std::int64_t t = 0; t < trials; ++t) {
      const auto at = static_cast<std::size_t>(t * s_max + s - 1);
      rows.push_back({n_text, sigma_text, s_text, c_text, std::to_string(t),
                      format_value(prefix.pitch[at]), std::to_string(prefix.block[at]), bound_text,
                      p_text});
    }
  }
  return rows;
}

// A named namespace, not an anonymous one: the runner is a unity build.
namespace blocksize_experiment {

struct BlocksizeCell {
  std::int64_t n;
  double sigma;
  std::size_t head;  // index into the scales (keys the head's seed)
  std::vector<HashParameters> hashes;  // (n, sigma, s) per sample count, checked once
};

// Sweep cells are (n, sigma); the s values of a cell share their hashes.
class Blocksize : public SweptExperiment<BlocksizeCell> {
 public:
  void declare_options(CLI::App& cmd) override {
    cmd.add_option("--n", n_, "Context lengths n (>= 1, <= 2^50)")->required()->delimiter(',');
    cmd.add_option("--sigma", sigma_, "ALiBi scales sigma = 1/slope (> 0)")->delimiter(',');
    cmd.add_option("--alibi-heads", alibi_heads_, alibi_heads_help(false));
    cmd.add_flag("--independent-heads", independent_heads_, kIndependentHeadsHelp);
    cmd.add_option("--s", s_, "Fixed hash counts s (>= 1)")->delimiter(',');
    cmd.add_option("--s-log", s_log_,
                   "Constants c (> 0) for s = ceil(c ln n), the count the uniform guarantee needs")
        ->delimiter(',');
    cmd.add_option("--trials", trials_, "Independent hash sets per (n, sigma, s) (>= 1)")
        ->capture_default_str();
    cmd.add_option("--seed", seed_, "Random seed (hashes are draw_hash(seed, trial, k, sigma))")
        ->capture_default_str();
    cmd.add_option("--p", p_, "Failure probability of the b_max bound, in (0, 1)")
        ->capture_default_str();
    plant_.declare(cmd);
  }

  void validate(CLI::App& cmd, const SweepOptions&) override {
    require_nonempty("--n", n_.size());
    for (const auto n : n_) check_block_size_length(n);
    scales_ = resolve_alibi_scales(cmd, sigma_, alibi_heads_, independent_heads_, false);
    if (s_.empty() && s_log_.empty()) throw UsageError("--s or --s-log needs at least one value");
    require_positive_finite("--s-log", s_log_);
    require_at_least("--trials", trials_, 1);
    require_open_unit("--p", p_);
    plant_.resolve();
    counts_.clear();
    for (const auto s : s_) counts_.push_back({s, 0});
    for (const auto c : s_log_) counts_.push_back({0, c});
    cells_ = make_cells();  // every (n, sigma, s) checked here, once (HashParameters)
  }

  std::vector<std::string> columns() const override { return blocksize_columns(); }

  std::vector<BlocksizeCell> cells() const override { return cells_; }

  std::vector<BlocksizeCell> make_cells() const {
    std::vector<BlocksizeCell> cells;
    for (const auto n : n_)
      for (std::size_t h = 0; h < scales_.sigmas.size(); ++h)
        cells.push_back({n, scales_.sigmas[h], h,
                         blocksize_hash_parameters(n, scales_.sigmas[h], counts_)});
    return cells;
  }

  std::vector<CsvRow> rows(const BlocksizeCell& cell) const override {
    const std::uint64_t seed = head_seed(seed_, cell.head, independent_heads_);
    return blocksize_cell_rows(cell.hashes, counts_, trials_, hash_drawer(seed, plant_.defect()),
                               p_);
  }

  std::string label(const BlocksizeCell& cell) const override {
    return fmt::format("n={} sigma={}", cell.n, format_value(cell.sigma));
  }

  std::string config_note() const override { return scales_.config_note(); }
  std::uint64_t seed() const override { return seed_; }

  // --alibi-heads H replaces --sigma; a sound run records no --plant-defect.
  RecordedOptions recorded_options(const CLI::App& cmd) const override {
    RecordedOptions recorded;
    record_alibi_scales(cmd, recorded);
    plant_.record(cmd, recorded);
    return recorded;
  }

 private:
  std::vector<std::int64_t> n_, s_;
  std::vector<double> sigma_, s_log_;
  int alibi_heads_ = 0;
  bool independent_heads_ = false;
  std::int64_t trials_ = 1000;
  std::uint64_t seed_ = 0;
  double p_ = 0.01;
  AlibiScales scales_;
  std::vector<SampleCount> counts_;  // --s, then --s-log
  std::vector<BlocksizeCell> cells_;
  PlantDefectOption plant_;
};

std::string blocksize_summary(const CsvTable& table) {
  return blocksize_summary_csv(blocksize_cell_stats(table));
}

Action add_blocksize_command(CLI::App& parent) {
  return swept_command(parent, "blocksize",
                       "Largest block b_max vs its exact law F(b)^s and sigma ln ln n",
                       std::make_shared<Blocksize>(), blocksize_summary);
}

const bool registered_blocksize = register_experiment({
    .name = "blocksize",
    .summary = "Largest block b_max vs its exact law F(b)^s and sigma ln ln n",
    .add_command = add_blocksize_command,
    .add_bench = {},
    .checker = {.required_columns = blocksize_columns(),
                .run = [](const CsvTable& t,
                          double alpha) { return check_blocksize_table(t, alpha); }},
    .summarize = blocksize_summary,
    .figures = {{.script = "blocksize_law", .title = "Largest block size: law and growth"}},
});

}  // namespace blocksize_experiment

}  // namespace poslsh
