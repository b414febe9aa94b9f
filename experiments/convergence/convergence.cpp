#include "experiments/convergence/convergence.h"

#include <fmt/format.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/bounds.h>
#include <poslsh/max_error.h>
#include <poslsh/spectral_error.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

#include "experiments/argument_flags.h"
#include "experiments/defects/planted_defect.h"
#include "runner/cli_common.h"
#include "runner/swept_experiment.h"

namespace poslsh {

const std::vector<std::string>& convergence_columns() {
  static const std::vector<std::string> columns = {"n",
                                                   "sigma",
                                                   "s",
                                                   "trial",
                                                   "form",
                                                   "p",
                                                   "spectral_error",
                                                   "spectral_accuracy",
                                                   "spectral_lower",
                                                   "spectral_upper",
                                                   "spectral_bound",
                                                   "max_error",
                                                   "max_bound",
                                                   "inf_error",
                                                   "b_max",
                                                   "b_max_bound",
                                                   "lanczos_iterations",
                                                   "lanczos_matvecs",
                                                   "status",
                                                   "seconds"};
  return columns;
}

CsvRow convergence_row(const HashParameters& hash, std::uint64_t trial,
                       std::span<const PositionalHash> hashes,
                       const ConvergenceSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  const auto [spectral, entrywise] = convergence_errors(hash, trial, hashes, settings);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool ok = spectral.status == SolveStatus::kOk;
  return {std::to_string(hash.n()),
          format_value(hash.sigma()),
          std::to_string(hash.s()),
          std::to_string(trial),
          settings.form == Form::kSymmetric ? "symmetric" : "causal",
          format_value(settings.p),
          ok ? format_value(spectral.value) : "",
          format_value(spectral.accuracy),
          format_value(spectral.lower),
          format_value(spectral.upper),
          format_value(spectral_bound(hash, settings.p, settings.form)),
          format_value(entrywise.max_error),
          format_value(max_bound(hash, settings.p)),
          format_value(entrywise.inf_error),
          std::to_string(entrywise.largest_block),
          std::to_string(b_max_bound(hash, settings.p)),
          std::to_string(spectral.iterations),
          std::to_string(spectral.matvecs),
          std::string(to_string(spectral.status)),
          fmt::format("{:.6f}", seconds)};
}

CsvRow convergence_row(std::int64_t n, double sigma, std::uint64_t trial,
                       std::span<const PositionalHash> hashes,
                       const ConvergenceSettings& settings) {
  return convergence_row(HashParameters(n, sigma, static_cast<std::int64_t>(hashes.size())), trial,
                         hashes, settings);
}

double convergence_memory_bytes(const HashParameters& hash, const ConvergenceSettings& settings) {
  const double nn = static_cast<double>(hash.n()), ss = static_cast<double>(hash.s());
  const double sigma = hash.sigma();
  const double blocks = ss * (std::min(nn, nn / (2 * sigma) + 2) + 1);
  const double tiles = nn / 1024 + 1;  // MaskMean's scatter tiles
  // Block starts: int64 per hash, uint32 tile-major copy, segment offsets.
  const double mask = 8 * blocks + 4 * (blocks + 2 * ss * tiles) + 8 * ss * tiles;
  const double m = settings.lanczos_starts;
  // Per product (at most one per start): the tiled pass's prefix-sum ring,
  // a power of 2 above a tile plus the largest block, and its tile of D.
  const double largest = std::min(nn, static_cast<double>(b_max_bound(hash, settings.p)));
  const double product = 8 * m * (2 * (1024 + largest + 1) + 1024);
  // v, v_prev, w; the normal operator's scratch (causal); per-position arrays
  // of the entrywise errors (start, length, and each of the two chunks' row
  // sums and difference array).
  const double vectors = 8 * nn * (3 * m + (settings.form == Form::kCausal ? m : 0) + 6);
  return 1.25 * (mask + product + vectors) + 16.0 * 1024 * 1024;
}

double convergence_memory_bytes(std::int64_t n, double sigma, std::int64_t s,
                                const ConvergenceSettings& settings) {
  return convergence_memory_bytes(HashParameters(n, sigma, s), settings);
}

// A named namespace, not an anonymous one: the runner is a unity build.
namespace convergence_experiment {

struct ConvergenceCell {
  HashParameters hash;  // (n, sigma, s), checked once, when the cells are made
  std::uint64_t trial;
  std::uint64_t seed;  // of the cell's head: --seed, or its own with --independent-heads
};

class Convergence : public SweptExperiment<ConvergenceCell> {
 public:
  void declare_options(CLI::App& cmd) override {
    cmd.add_option("--n", n_, "Context lengths (list, each >= 1)")
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--sigma", sigma_, "ALiBi scales sigma = 1/slope (list, > 0)")
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--s", s_, "Numbers of hashes (list, each >= 1)")
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--alibi-heads", alibi_heads_, alibi_heads_help(true))->capture_default_str();
    cmd.add_flag("--independent-heads", independent_heads_, kIndependentHeadsHelp);
    cmd.add_option("--trials", trials_, "Independent hash sets per (n, sigma, s) (>= 1)")
        ->capture_default_str();
    cmd.add_option("--seed", settings_.seed, "Random seed")->capture_default_str();
    cmd.add_option("--p", settings_.p, "Failure probability of the bounds, in (0, 1)")
        ->capture_default_str();
    cmd.add_flag("--causal", causal_, "Causal form T ⊙ (M~ - L*)");
    declare_solver_options(cmd);
    plant_.declare(cmd);
  }

  void validate(CLI::App& cmd, const SweepOptions& sweep) override {
    require_nonempty("--n", n_.size());
    for (auto n : n_) check_mask_length(n);  // before a 2^32-position mask is built
    require_nonempty("--s", s_.size());
    require_at_least("--trials", trials_, 1);
    require_open_unit("--p", settings_.p);
    validate_solver_options();
    plant_.resolve();
    scales_ = resolve_alibi_scales(cmd, sigma_, alibi_heads_, independent_heads_, true);
    settings_.form = causal_ ? Form::kCausal : Form::kSymmetric;
    cells_ = make_cells();  // every (n, sigma, s) checked here, once (HashParameters)
    // Threads the cells leave idle go inside the rows (fewer cells than
    // threads, e.g. one row at n = 2^24); rows do not depend on it.
    const int threads = sweep.threads > 0
                            ? sweep.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const std::size_t cell_count = cells().size();
    settings_.threads = cell_count >= static_cast<std::size_t>(threads)
                            ? 1
                            : threads / static_cast<int>(cell_count);
  }

  std::vector<std::string> columns() const override { return convergence_columns(); }
  std::vector<std::string> timing_columns() const override { return {"seconds"}; }

  std::vector<ConvergenceCell> cells() const override { return cells_; }

  std::vector<ConvergenceCell> make_cells() const {
    std::vector<ConvergenceCell> cells;
    for (auto n : n_)
      for (std::size_t h = 0; h < scales_.sigmas.size(); ++h)
        for (auto s : s_)
          for (std::int64_t t = 0; t < trials_; ++t)
            cells.push_back({HashParameters(n, scales_.sigmas[h], s), static_cast<std::uint64_t>(t),
                             head_seed(settings_.seed, h, independent_heads_)});
    return cells;
  }

  std::vector<CsvRow> rows(const ConvergenceCell& x) const override {
    // Hash k of (seed, trial) does not depend on s: these are the first s
    // hashes of the trial, as `poslsh sample --s S` exports them. With
    // --independent-heads the head's own seed keys its hashes and its
    // Lanczos starts.
    ConvergenceSettings head_settings = settings_;
    head_settings.seed = x.seed;
    const auto hashes = draw_hashes(x.seed, plant_.defect(), x.trial, x.hash);
    return {convergence_row(x.hash, x.trial, hashes, head_settings)};
  }

  std::string label(const ConvergenceCell& x) const override {
    return fmt::format("n={} sigma={} s={} trial={}", x.hash.n(), format_value(x.hash.sigma()),
                       x.hash.s(), x.trial);
  }

  // A product costs about n + s n / (2 sigma) (positions and blocks).
  double cost(const ConvergenceCell& x) const override {
    return static_cast<double>(x.hash.n()) *
           (1.0 + static_cast<double>(x.hash.s()) / (2.0 * x.hash.sigma()));
  }

  bool estimates_memory() const override { return true; }
  double memory_bytes(const ConvergenceCell& x) const override {
    return convergence_memory_bytes(x.hash, settings_);
  }
  std::string config_note() const override { return scales_.config_note(); }
  std::uint64_t seed() const override { return settings_.seed; }

  // --alibi-heads H replaces --sigma; a sound run records no --plant-defect.
  RecordedOptions recorded_options(const CLI::App& cmd) const override {
    RecordedOptions recorded;
    record_alibi_scales(cmd, recorded);
    plant_.record(cmd, recorded);
    return recorded;
  }

 private:
  // The solver's options; their defaults are SpectralErrorOptions', each
  // defined once (ConvergenceSettings takes them from there).
  void declare_solver_options(CLI::App& cmd) {
    cmd.add_option("--spectral-tol", settings_.spectral_tol,
                   "Relative accuracy asked of the spectral norm (> 0)")
        ->capture_default_str();
    cmd.add_option("--max-lanczos", settings_.max_lanczos,
                   "Lanczos step cap; a solve that hits it is reported not_converged (>= 1)")
        ->capture_default_str();
    cmd.add_option("--lanczos-starts", settings_.lanczos_starts,
                   "Independent random starts run together (1..8): the estimate is their best, "
                   "and the certificate fails only if all of them fail")
        ->capture_default_str();
    cmd.add_option("--upper-q", settings_.upper_q,
                   "spectral_upper holds with probability >= 1 - q over the starts, q in (0, 1)")
        ->capture_default_str();
    cmd.add_option("--upper-width", settings_.upper_width,
                   "After the estimate converged, iterate until spectral_upper / spectral_lower - "
                   "1 <= this (> 0; inf: do not wait)")
        ->capture_default_str();
  }

  // The solver checks these only when it runs: checked here, up front, in the
  // solver's words (an ArgumentError the CLI reports with the flag).
  void validate_solver_options() const {
    validate_spectral_error_options(solver_options(settings_, 0));
  }

  std::vector<std::int64_t> n_ = {1024};
  std::vector<double> sigma_ = {16};
  std::vector<std::int64_t> s_ = {1, 2, 4, 8, 16, 32, 64};
  int alibi_heads_ = 0;
  bool independent_heads_ = false;
  std::int64_t trials_ = 4;
  bool causal_ = false;
  ConvergenceSettings settings_;  // seed, p and the solver's options: bound to the CLI
  AlibiScales scales_;
  std::vector<ConvergenceCell> cells_;  // made by validate()
  PlantDefectOption plant_;
};

Action add_convergence_command(CLI::App& parent) {
  return swept_command(parent, "convergence",
                       "Spectral, max-norm and row-sum errors of M~ vs s, with their bounds",
                       std::make_shared<Convergence>());
}

Action add_convergence_bench(CLI::App& bench) {
  auto o = std::make_shared<ConvergenceBenchOptions>();
  auto* cmd = bench.add_subcommand(
      "convergence", "Spectral and max-norm error at large n; a whole row vs a dense eigensolver");
  cmd->add_option("--n-large", o->n_large, "n of the large-n timing (default 2^20)")
      ->capture_default_str();
  cmd->add_option("--n-row", o->n_row, "n of the whole-row timing")->capture_default_str();
  cmd->add_option("--n-dense", o->n_dense, "n of the dense eigensolver comparison")
      ->capture_default_str();
  cmd->add_option("--sigma", o->sigma, "ALiBi scale")->capture_default_str();
  cmd->add_option("--s", o->s, "Number of hashes")->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed")->capture_default_str();
  cmd->add_option("--trials", o->trials, "Trials (hash sets) timed at each size")
      ->capture_default_str();
  cmd->add_option("--row-seeds", o->row_seeds,
                  "Also time whole rows at n-large for these seeds (list), with median and worst")
      ->delimiter(',');
  cmd->add_flag("--no-spectra", o->no_spectra,
                "Skip the tight-tolerance Spectra run that checks the accuracy at n-row");
  cmd->add_option("--scipy-seeds", o->scipy_seeds,
                  "Also run scripts/bench_scipy_eigsh.py (scipy eigsh) for these seeds (list) at "
                  "--scipy-n against a whole row on one thread")
      ->delimiter(',');
  cmd->add_option("--scipy-n", o->n_scipy, "n of the scipy baseline")->capture_default_str();
  cmd->add_option("--python", o->python, "Python interpreter with numpy and scipy")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads,
                  "Threads inside a row (0: all hardware threads); the large-n solve is also "
                  "timed on one thread beside it")
      ->capture_default_str();
  return [o] {
    require_at_least("--n-large", o->n_large, 3);
    require_at_least("--n-row", o->n_row, 3);
    require_at_least("--n-dense", o->n_dense, 3);
    require_positive_finite("--sigma", o->sigma);
    require_hash_count("--s", {o->s});
    require_at_least("--trials", o->trials, 1);
    require_at_least("--threads", o->threads, 0);
    require_at_least("--scipy-n", o->n_scipy, 3);
    if (o->threads == 0)
      o->threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return run_convergence_bench(*o);
  };
}

const bool registered_convergence = register_experiment({
    .name = "convergence",
    .summary = "Spectral and max-norm errors of M~ vs s, with their bounds",
    .add_command = add_convergence_command,
    .add_bench = add_convergence_bench,
    .checker = {.required_columns = {"n", "sigma", "s", "trial", "spectral_error",
                                     "spectral_accuracy", "spectral_bound", "max_error",
                                     "max_bound", "inf_error", "b_max", "lanczos_matvecs",
                                     "status"},
                .run = [](const CsvTable& t,
                          double alpha) { return check_convergence_table(t, alpha); }},
    .figures = {{.script = "convergence_error_vs_s",
                 .title = "Errors of the mean of s masks against s"},
                {.script = "convergence_constant_vs_n",
                 .title = "The constant of the O(1/sqrt(s)) rate against n"}},
});

}  // namespace convergence_experiment
}  // namespace poslsh
