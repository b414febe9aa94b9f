#include "experiments/attention.h"

#include <fmt/format.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/attention_bounds.h>
#include <poslsh/band_attention.h>
#include <poslsh/baseline_attention.h>
#include <poslsh/input_error.h>
#include <poslsh/lsh_attention.h>
#include <poslsh/npy.h>
#include <poslsh/rng.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

#include "runner/cli_common.h"
#include "runner/sha256.h"
#include "runner/sweep.h"

namespace poslsh {

QkvData synthetic_qkv(std::uint64_t seed, std::int64_t n, std::int64_t d, double qk_scale) {
  auto draw = [&](std::uint64_t tensor, double sd) {
    Stream rng(seed, 0, tensor, StreamPurpose::kSyntheticQkv);
    HeadStack<double> m{1, RowMatrix<double>(n, d)};
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t c = 0; c < d; ++c) m.data(i, c) = sd * rng.normal();
    return m;
  };
  const double sd = std::sqrt(qk_scale);
  return {draw(0, sd), draw(1, sd), draw(2, 1.0)};
}

QkvData load_qkv_dir(const std::string& dir) {
  const std::filesystem::path base(dir);
  if (!std::filesystem::is_directory(base))
    throw InputError("--qkv: '" + dir + "' is neither 'synthetic' nor a directory");
  QkvData data{read_head_stack_npy((base / "q.npy").string()),
               read_head_stack_npy((base / "k.npy").string()),
               read_head_stack_npy((base / "v.npy").string())};
  const HeadStack<double>* stacks[] = {&data.q, &data.k, &data.v};
  const char* names[] = {"q.npy", "k.npy", "v.npy"};
  // A NaN or inf would propagate into every error column of its rows (and a
  // NaN compares false against every bound): unusable input, named exactly.
  for (int t = 0; t < 3; ++t) {
    const auto& m = stacks[t]->data;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
      for (Eigen::Index c = 0; c < m.cols(); ++c)
        if (!std::isfinite(m(r, c)))
          throw InputError(fmt::format(
              "--qkv: {} holds {} at head {}, row {}, column {}; Q, K and V must be finite",
              (base / names[t]).string(), m(r, c), r / stacks[t]->n(), r % stacks[t]->n(), c));
  }
  for (int t = 1; t < 3; ++t) {
    if (stacks[t]->n() != data.q.n())
      throw InputError(fmt::format("--qkv: {} has n = {} but q.npy has n = {}", names[t],
                                   stacks[t]->n(), data.q.n()));
  }
  if (data.k.d() != data.q.d())
    throw InputError(
        fmt::format("--qkv: k.npy has d = {} but q.npy has d = {}", data.k.d(), data.q.d()));
  std::int64_t heads = 1;
  for (int t = 0; t < 3; ++t) {
    if (stacks[t]->heads == 1) continue;
    if (heads != 1 && stacks[t]->heads != heads)
      throw InputError(fmt::format("--qkv: {} has {} heads, another file has {}", names[t],
                                   stacks[t]->heads, heads));
    heads = stacks[t]->heads;
  }
  return data;
}

const std::vector<std::string>& attention_columns() {
  static const std::vector<std::string> columns = {"n",
                                                   "d",
                                                   "sigma",
                                                   "head",
                                                   "form",
                                                   "s",
                                                   "trial",
                                                   "estimator",
                                                   "width",
                                                   "keys_per_query",
                                                   "largest_block",
                                                   "max_error",
                                                   "rel_frobenius_error",
                                                   "certificate",
                                                   "uniform_bound",
                                                   "rounding_allowance",
                                                   "max_abs_logit",
                                                   "seconds",
                                                   "reference_bound"};
  return columns;
}

namespace {

struct AttentionOptionsCli {
  std::vector<std::int64_t> n = {1024, 4096};
  std::vector<std::int64_t> d = {64};
  std::vector<double> sigma;
  int alibi_heads = 0;
  bool independent_heads = false;
  std::vector<std::int64_t> s = {1, 4, 16, 64};
  std::int64_t trials = 4;
  std::uint64_t seed = 0;
  std::vector<std::string> estimator = {"lsh", "fixed", "window"};
  std::int64_t width = 0;
  bool causal = false;
  std::string qkv = "synthetic";
  double qk_scale = 1.0;
  double band_tol = BandAttentionOptions{}.tol;
  std::string reference = "dense";
  double reference_tol = 1e-13;
  std::string save_outputs;
  SweepOptions sweep;
};

struct Problem {  // one (n, d) data set
  std::int64_t n, d;
  QkvData data;
};

struct AttentionCell {
  std::size_t problem;
  std::int64_t head;  // index into the sigma list
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Action make_action(CLI::App* cmd, std::shared_ptr<AttentionOptionsCli> o) {
  return [cmd, o]() -> int {
    const bool from_files = o->qkv != "synthetic";
    if (cmd->count("--sigma") && o->alibi_heads != 0)
      throw UsageError("--sigma and --alibi-heads are exclusive: give one");
    require_heads_for_independent(o->independent_heads, o->alibi_heads != 0);
    // Recorded only when set: "= false" would change the fingerprint of a shared run.
    if (!o->independent_heads)
      if (CLI::Option* flag = cmd->get_option_no_throw("--independent-heads")) flag->clear();
    std::vector<double> sigmas = o->sigma;
    if (o->alibi_heads != 0) sigmas = alibi_head_sigmas(o->alibi_heads);
    if (sigmas.empty()) throw UsageError("give --sigma (a list of scales > 0) or --alibi-heads H");
    require_positive_finite("--sigma", sigmas);
    require_at_least("--s", o->s, 1);
    require_at_least("--trials", o->trials, 1);
    require_nonempty("--estimator", o->estimator.size());
    for (const auto& e : o->estimator)
      if (e != "lsh" && e != "fixed" && e != "window" && e != "band")
        throw UsageError(
            fmt::format("--estimator accepts lsh, fixed, window, band (got '{}')", printable(e)));
    if (!(o->band_tol >= 0 && o->band_tol < 1))
      throw UsageError(
          fmt::format("--band-tol must be a number in [0, 1), got {}", format_double(o->band_tol)));
    if (o->reference != "dense" && o->reference != "band")
      throw UsageError(
          fmt::format("--reference accepts dense, band (got '{}')", printable(o->reference)));
    if (!(o->reference_tol > 0 && o->reference_tol < 1))
      throw UsageError(fmt::format("--reference-tol must be a number in (0, 1), got {}",
                                   format_double(o->reference_tol)));
    require_at_least("--width", o->width, 0);
    require_positive_finite("--qk-scale", o->qk_scale);
    const Form form = o->causal ? Form::kCausal : Form::kSymmetric;
    if (!o->save_outputs.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(o->save_outputs, ec);
      if (ec || !std::filesystem::is_directory(o->save_outputs))
        throw UsageError(fmt::format("--save-outputs: cannot create the directory '{}' ({})",
                                     printable(o->save_outputs, 200),
                                     ec ? ec.message() : "a file is in the way"));
    }

    std::vector<Problem> problems;
    if (from_files) {
      if (cmd->count("--n") || cmd->count("--d"))
        throw UsageError("--n and --d come from the .npy files with --qkv DIR; drop them");
      QkvData data = load_qkv_dir(o->qkv);
      const std::int64_t heads = std::max({data.q.heads, data.k.heads, data.v.heads});
      if (heads > 1 && static_cast<std::int64_t>(sigmas.size()) != heads)
        throw UsageError(fmt::format(
            "--qkv: the files have {} heads, so give {} scales (--alibi-heads {} or --sigma "
            "with {} values), got {}",
            heads, heads, heads, heads, sigmas.size()));
      const std::int64_t n = data.q.n(), d = data.q.d();
      problems.push_back({n, d, std::move(data)});
    } else {
      require_at_least("--n", o->n, 1);
      require_at_least("--d", o->d, 1);
      // Synthetic Q, K, V (float64) stay in memory for the whole run; each
      // running cell holds about five more n x d arrays (outputs, per-row
      // state). Checked before anything is generated.
      double inputs = 0, largest = 0;
      for (auto n : o->n)
        for (auto d : o->d) {
          const double nd = static_cast<double>(n) * static_cast<double>(d) * 8.0;
          inputs += 3 * nd;
          largest = std::max(largest, 5 * nd);
        }
      const double concurrent =
          std::min<double>(resolve_threads(o->sweep.threads),
                           static_cast<double>(o->n.size() * o->d.size() * sigmas.size()));
      require_memory("attention (synthetic Q, K, V and the running cells)",
                     inputs + concurrent * largest, o->sweep);
      for (auto n : o->n)
        for (auto d : o->d) problems.push_back({n, d, synthetic_qkv(o->seed, n, d, o->qk_scale)});
    }
    auto shared_problems = std::make_shared<std::vector<Problem>>(std::move(problems));
    std::vector<AttentionCell> cells;
    for (std::size_t p = 0; p < shared_problems->size(); ++p)
      for (std::size_t h = 0; h < sigmas.size(); ++h)
        cells.push_back({p, static_cast<std::int64_t>(h)});
    const int workers = resolve_threads(o->sweep.threads);
    // Threads left over when there are fewer cells than workers go inside a
    // cell; results do not depend on it (bit-identical for any thread count).
    const int inner =
        std::max<int>(1, workers / std::max<int>(1, std::min<int>(workers, cells.size())));

    Sweep sweep;
    sweep.experiment = cmd->get_name();  // attention or attention-length
    sweep.columns = attention_columns();
    sweep.timing_columns = {"seconds"};
    sweep.num_cells = cells.size();
    sweep.seed = o->seed;
    sweep.resolved_config = resolved_config(*cmd) +
                            (o->alibi_heads != 0 ? alibi_heads_config_note(o->alibi_heads) : "");
    if (from_files) {
      // Provenance: which bytes were read (a TOML comment, so the recorded
      // config still runs; and part of the sweep's fingerprint, so --resume
      // and merge refuse to mix runs on different files).
      // `poslsh rerun` checks every "# input PATH sha256 HEX" line before it runs.
      for (const char* f : {"q.npy", "k.npy", "v.npy"}) {
        const std::string file =
            (std::filesystem::absolute(o->qkv) / f).lexically_normal().string();
        sweep.resolved_config +=
            fmt::format("# input {} sha256 {} ({} bytes)\n", file, sha256_file(file, "--qkv"),
                        std::filesystem::file_size(file));
      }
    }
    sweep.label = [cells, shared_problems, sigmas](std::size_t c) {
      const auto& p = (*shared_problems)[cells[c].problem];
      return fmt::format("n={} d={} sigma={}", p.n, p.d, format_double(sigmas[cells[c].head]));
    };
    sweep.run_cell = [cells, shared_problems, sigmas, o, form, inner](std::size_t c) {
      const AttentionCell cell = cells[c];
      const Problem& p = (*shared_problems)[cell.problem];
      const double sigma = sigmas[static_cast<std::size_t>(cell.head)];
      // The head's hashes (Q, K, V are the data: a synthetic set is shared by the heads).
      const std::uint64_t seed =
          head_seed(o->seed, static_cast<std::size_t>(cell.head), o->independent_heads);
      const auto q = p.data.q.head(cell.head), k = p.data.k.head(cell.head),
                 v = p.data.v.head(cell.head);
      const AttentionOptions opts{.threads = inner};
      // The reference T*: dense exact attention (every key), or certified
      // band-exact attention at --reference-tol, whose error bound
      // (reference_bound, its certificate) every check adds to the margin of
      // a measured error; its row statistics carry their slack into the
      // approximations' certificates (attention_bounds.h).
      SoftmaxRowStats stats;
      RowMatrix<double> exact;
      double reference_bound = 0.0;
      if (o->reference == "band") {
        BandAttentionOptions ref_opts;
        ref_opts.tol = o->reference_tol;
        ref_opts.attention = opts;
        auto ref = band_exact_attention<double>(q, k, v, sigma, form, ref_opts);
        exact = std::move(ref.output);
        stats = std::move(ref.stats);
        reference_bound = ref.certificate();
      } else {
        exact = exact_alibi_attention<double>(q, k, v, sigma, form, opts, &stats);
      }
      const double exact_norm = exact.norm();
      std::vector<CsvRow> rows;
      // A value that does not apply to an estimator (s and trial of fixed
      // blocks and of an explicit-width window, the width of LSH, the block
      // size of a window) is an empty cell, which CSV readers load as NaN; a
      // placeholder 0 would be averaged and plotted as if it were measured.
      constexpr std::int64_t kNotApplicable = -1;
      auto cell_of = [](std::int64_t v) {
        return v == kNotApplicable ? std::string() : std::to_string(v);
      };
      // --save-outputs DIR: every output of this cell as a float64 .npy, (n, dv),
      // named by what made it; written to a .partial file and renamed, so an
      // interrupted run leaves no truncated array under a final name.
      auto save = [&](const std::string& what, const RowMatrix<double>& out) {
        if (o->save_outputs.empty()) return;
        const auto file = std::filesystem::path(o->save_outputs) /
                          fmt::format("n{}_d{}_head{}_{}.npy", p.n, p.d, cell.head, what);
        const std::string partial = file.string() + ".partial";
        write_npy(partial, {out.rows(), out.cols()}, out.data(), NpyDtype::kFloat64);
        std::filesystem::rename(partial, file);
      };
      save("exact", exact);
      auto emit = [&](std::int64_t s, std::int64_t trial, const std::string& est,
                      std::int64_t width, double kpq, std::int64_t largest,
                      const RowMatrix<double>& approx, const AttentionBounds& b, double secs) {
        save(s == kNotApplicable ? est : fmt::format("{}_s{}_trial{}", est, s, trial), approx);
        rows.push_back({std::to_string(p.n), std::to_string(p.d), format_double(sigma),
                        std::to_string(cell.head), form == Form::kCausal ? "causal" : "symmetric",
                        cell_of(s), cell_of(trial), est, cell_of(width), format_double(kpq),
                        cell_of(largest), format_double((approx - exact).cwiseAbs().maxCoeff()),
                        format_double((approx - exact).norm() / exact_norm),
                        format_double(b.certificate), format_double(b.uniform_bound),
                        format_double(b.rounding_allowance), format_double(b.max_abs_logit),
                        format_double(secs), format_double(reference_bound)});
      };
      const bool want_lsh = std::count(o->estimator.begin(), o->estimator.end(), "lsh") > 0;
      const bool want_fixed = std::count(o->estimator.begin(), o->estimator.end(), "fixed") > 0;
      const bool want_window = std::count(o->estimator.begin(), o->estimator.end(), "window") > 0;
      auto run_window = [&](std::int64_t s, std::int64_t trial, std::int64_t w) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto approx = sliding_window_attention<double>(q, k, v, sigma, w, form, opts);
        const double secs = seconds_since(t0);
        const auto b = window_attention_bounds(q, k, v, sigma, w, form, stats, opts);
        emit(s, trial, "window", w, window_keys_per_query(p.n, w, form), kNotApplicable, approx, b,
             secs);
      };
      if (want_fixed) {
        const std::int64_t w =
            o->width > 0 ? o->width : std::max<std::int64_t>(1, std::llround(2 * sigma));
        const auto mask = fixed_block_mask(p.n, w, form);
        const auto t0 = std::chrono::steady_clock::now();
        const auto approx = lsh_attention<double>(q, k, v, mask, opts);
        const double secs = seconds_since(t0);
        const auto b = lsh_attention_bounds(q, k, v, sigma, mask, stats, opts);
        emit(kNotApplicable, kNotApplicable, "fixed", w, lsh_keys_per_query(mask),
             mask.largest_block(), approx, b, secs);
      }
      if (want_window && o->width > 0) run_window(kNotApplicable, kNotApplicable, o->width);
      if (std::count(o->estimator.begin(), o->estimator.end(), "band") > 0) {
        // Certified band-exact attention: the keys left out carry at most
        // band_tol of each row's mass; its certificate is a bound for any Q, K, V.
        BandAttentionOptions band_opts;
        band_opts.tol = o->band_tol;
        band_opts.attention = opts;
        const auto t0 = std::chrono::steady_clock::now();
        const auto band = band_exact_attention<double>(q, k, v, sigma, form, band_opts);
        const double secs = seconds_since(t0);
        AttentionBounds b;
        b.certificate = band.certificate();
        b.uniform_bound = band.certificate();
        b.rounding_allowance = kRoundingAllowance * v.cwiseAbs().maxCoeff();
        b.max_abs_logit = stats.max_abs_logit;
        const std::int64_t widest =
            *std::max_element(band.tile_half_width.begin(), band.tile_half_width.end());
        emit(kNotApplicable, kNotApplicable, "band", widest, band.keys_per_query, kNotApplicable,
             band.output, b, secs);
      }
      for (std::int64_t s : o->s) {
        for (std::int64_t trial = 0; trial < o->trials; ++trial) {
          if (!want_lsh && !(want_window && o->width == 0)) continue;
          const MaskMean mask(p.n, draw_hashes(seed, trial, s, sigma), form);
          const double kpq = lsh_keys_per_query(mask);
          if (want_lsh) {
            const auto t0 = std::chrono::steady_clock::now();
            const auto approx = lsh_attention<double>(q, k, v, mask, opts);
            const double secs = seconds_since(t0);
            const auto b = lsh_attention_bounds(q, k, v, sigma, mask, stats, opts);
            emit(s, trial, "lsh", kNotApplicable, kpq, mask.largest_block(), approx, b, secs);
          }
          if (want_window && o->width == 0) run_window(s, trial, equal_cost_half_width(kpq, form));
        }
      }
      return rows;
    };
    return run_sweep(sweep, o->sweep);
  };
}

// The options of `poslsh attention`, with `defaults` as their defaults, on a
// subcommand `name` (attention-length is the same experiment with defaults for
// a length-extrapolation table, so a config can hold both sections).
Action add_attention_like_command(CLI::App& parent, const std::string& name,
                                  const std::string& summary, const AttentionOptionsCli& defaults) {
  auto o = std::make_shared<AttentionOptionsCli>(defaults);
  auto* cmd = parent.add_subcommand(name, summary);
  cmd->add_option("--n", o->n, "Context lengths (list, >= 1; synthetic data only)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--d", o->d, "Head dimensions (list, >= 1; synthetic data only)")
      ->delimiter(',')
      ->capture_default_str();
  auto* sigma = cmd->add_option("--sigma", o->sigma, "ALiBi scales sigma = 1/slope (list, > 0)")
                    ->delimiter(',');
  if (!defaults.sigma.empty()) sigma->capture_default_str();
  cmd->add_option("--alibi-heads", o->alibi_heads, alibi_heads_help(true));
  cmd->add_flag("--independent-heads", o->independent_heads, kIndependentHeadsHelp);
  cmd->add_option("--s", o->s, "Numbers of hashes (list, >= 1)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--trials", o->trials, "Independent hash sets per (n, d, sigma, s)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed (hashes and synthetic Q, K, V)")
      ->capture_default_str();
  cmd->add_option("--estimator", o->estimator,
                  "Estimators: lsh, fixed, window, band (list; band: certified band-exact "
                  "attention, the keys whose mass is provably below --band-tol left out)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--width", o->width,
                  "Baselines' width: fixed-block width and window half-width (0: fixed uses "
                  "round(2 sigma), window matches each LSH instance's cost)")
      ->capture_default_str();
  cmd->add_flag("--causal", o->causal, "Causal attention (keys j <= i)");
  cmd->add_option("--qkv", o->qkv,
                  "'synthetic' (seeded Gaussian) or a directory with q.npy, k.npy, v.npy "
                  "(float32/float64, C order, (n, d) or (H, n, d))")
      ->capture_default_str();
  cmd->add_option("--qk-scale", o->qk_scale,
                  "Synthetic data: standard deviation of the logits q.k/sqrt(d) (> 0)")
      ->capture_default_str();
  cmd->add_option("--band-tol", o->band_tol,
                  "band estimator: bound, on every row, on the softmax mass of the keys left "
                  "out relative to the mass kept, in [0, 1) (0: every key)")
      ->capture_default_str();
  cmd->add_option("--reference", o->reference,
                  "The reference T* the errors are measured against: dense (exact attention "
                  "over every key, O(n^2 d)) or band (certified band-exact at --reference-tol, "
                  "near-linear; its certificate is the column reference_bound, which the "
                  "checks add to every margin)")
      ->capture_default_str();
  cmd->add_option("--reference-tol", o->reference_tol,
                  "--reference band: bound on the left-out softmax mass relative to the kept "
                  "mass, every row, in (0, 1)")
      ->capture_default_str();
  cmd->add_option(
      "--save-outputs", o->save_outputs,
      "Directory (created if missing) for every output tensor as float64 .npy, "
      "shape (n, dv) per head: n{n}_d{d}_head{h}_exact.npy, ..._lsh_s{s}_trial{t}.npy, "
      "..._window_s{s}_trial{t}.npy (..._window.npy with --width), ..._fixed.npy, ..._band.npy");
  add_sweep_options(*cmd, o->sweep);
  return make_action(cmd, o);
}

Action add_attention_command(CLI::App& parent) {
  return add_attention_like_command(
      parent, "attention",
      "Error of positional-LSH attention and baselines vs exact ALiBi attention", {});
}

// Length extrapolation (figure 4b): fixed s and sigma, n from 2^13 to 2^17,
// against the certified band-exact float64 reference (dense exact attention
// would cost O(n^2 d) per n). Its table is an attention table: the same
// columns and checks (length[...] tests that rel_frobenius_error is flat in n
// and reports how max_error grows).
Action add_attention_length_command(CLI::App& parent) {
  AttentionOptionsCli defaults;
  defaults.n = {8192, 16384, 32768, 65536, 131072};
  defaults.sigma = {16};
  defaults.s = {8};
  defaults.trials = 16;
  defaults.reference = "band";
  return add_attention_like_command(
      parent, "attention-length",
      "Length extrapolation: the attention experiment at fixed s as n grows, against the "
      "certified band-exact reference (defaults: n = 2^13..2^17, sigma 16, s 8, 16 trials)",
      defaults);
}

const bool registered_attention_length = register_experiment({
    .name = "attention-length",
    .summary =
        "Length extrapolation: attention errors at fixed s as n grows (band-exact reference)",
    .add_command = add_attention_length_command,
    .add_bench = {},
    .checker = {},  // its table is an attention table: attention's checker runs on it
});

const bool registered_attention = register_experiment({
    .name = "attention",
    .summary = "Positional-LSH attention vs exact ALiBi attention and baselines",
    .add_command = add_attention_command,
    .add_bench = add_attention_bench,
    .checker = {.required_columns = {"n", "d", "sigma", "s", "trial", "estimator", "max_error",
                                     "certificate", "uniform_bound", "rounding_allowance"},
                .run = [](const CsvTable& t,
                          double alpha) { return check_attention_table(t, alpha); }},
});

}  // namespace
}  // namespace poslsh
