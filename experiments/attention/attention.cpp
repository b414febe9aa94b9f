#include "experiments/attention/attention.h"

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
#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

#include "experiments/argument_flags.h"
#include "experiments/attention/attention_paths.h"
#include "experiments/oracles/control_sampler.h"
#include "experiments/attention/estimator_probe.h"
#include "experiments/defects/planted_defect.h"
#include "internal/printable.h"
#include "runner/cli_common.h"
#include "runner/sha256.h"
#include "runner/sweep.h"
#include "runner/swept_experiment.h"

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
                                                   "reference_bound",
                                                   "scale_projection",
                                                   "control_max_error",
                                                   "control_rel_frobenius_error",
                                                   "control_scale_projection",
                                                   "estimator_deviation",
                                                   "hash_digest",
                                                   "precision",
                                                   "layout"};
  return columns;
}

// The identity of an lsh row's hashes for trials-distinct: 16 hex digits of
// a SplitMix64 chain over every pitch and shift bit pattern. Two sound trials
// share a digest only by a 64-bit collision; on any Q, K, V (a query that
// attends to itself alone makes every trial's errors 0) the digest still
// tells trials apart, where equal errors would not.
std::string hash_digest(const std::vector<PositionalHash>& hashes) {
  std::uint64_t h = 0x6a09e667f3bcc908ULL;
  for (const auto& x : hashes) {
    h = mix64(h ^ std::bit_cast<std::uint64_t>(x.pitch));
    h = mix64(h ^ std::bit_cast<std::uint64_t>(x.shift));
  }
  return fmt::format("{:016x}", h);
}

// A named namespace, not an anonymous one: the runner is a unity build.
namespace attention_experiment {

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
  std::int64_t paths_n = 0;
  PlantDefectOption plant;

  bool wants(const char* estimator_name) const {
    return std::count(estimator.begin(), estimator.end(), estimator_name) > 0;
  }
};

struct Problem {  // one (n, d) data set
  std::int64_t n, d;
  QkvData data;
};

struct AttentionCell {
  std::size_t problem;  // == the number of problems: the path probe (--paths-n)
  std::int64_t head;    // index into the sigma list
  std::vector<HashParameters> hashes;  // (n, sigma, s) per --s value, checked once
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The options of `poslsh attention`, on `cmd`.
void declare_attention_options(CLI::App& cmd, AttentionOptionsCli& o, bool sigma_has_default) {
  cmd.add_option("--n", o.n, "Context lengths (list, >= 1; synthetic data only)")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option("--d", o.d, "Head dimensions (list, >= 1; synthetic data only)")
      ->delimiter(',')
      ->capture_default_str();
  auto* sigma = cmd.add_option("--sigma", o.sigma, "ALiBi scales sigma = 1/slope (list, > 0)")
                    ->delimiter(',');
  if (sigma_has_default) sigma->capture_default_str();
  cmd.add_option("--alibi-heads", o.alibi_heads, alibi_heads_help(true));
  cmd.add_flag("--independent-heads", o.independent_heads, kIndependentHeadsHelp);
  cmd.add_option("--s", o.s, "Numbers of hashes (list, >= 1)")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option("--trials", o.trials, "Independent hash sets per (n, d, sigma, s)")
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "Random seed (hashes and synthetic Q, K, V)")
      ->capture_default_str();
  cmd.add_option("--estimator", o.estimator,
                 "Estimators: lsh, fixed, window, band (list; band: certified band-exact "
                 "attention, the keys whose mass is provably below --band-tol left out)")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option("--width", o.width,
                 "Baselines' width: fixed-block width and window half-width (0: fixed uses "
                 "round(2 sigma), window matches each LSH instance's cost)")
      ->capture_default_str();
  cmd.add_flag("--causal", o.causal, "Causal attention (keys j <= i)");
  cmd.add_option("--qkv", o.qkv,
                 "'synthetic' (seeded Gaussian) or a directory with q.npy, k.npy, v.npy "
                 "(float32/float64, C order, (n, d) or (H, n, d))")
      ->capture_default_str();
  cmd.add_option("--qk-scale", o.qk_scale,
                 "Synthetic data: standard deviation of the logits q.k/sqrt(d) (> 0)")
      ->capture_default_str();
  cmd.add_option("--band-tol", o.band_tol,
                 "band estimator: bound, on every row, on the softmax mass of the keys left "
                 "out relative to the mass kept, in [0, 1) (0: every key)")
      ->capture_default_str();
  cmd.add_option("--reference", o.reference,
                 "The reference T* the errors are measured against: dense (exact attention "
                 "over every key, O(n^2 d)) or band (certified band-exact at --reference-tol, "
                 "near-linear; its certificate is the column reference_bound, which the "
                 "checks add to every margin)")
      ->capture_default_str();
  cmd.add_option("--reference-tol", o.reference_tol,
                 "--reference band: bound on the left-out softmax mass relative to the kept "
                 "mass, every row, in (0, 1)")
      ->capture_default_str();
  cmd.add_option(
      "--save-outputs", o.save_outputs,
      "Directory (created if missing) for every output tensor as float64 .npy, "
      "shape (n, dv) per head: n{n}_d{d}_head{h}_exact.npy, ..._lsh_s{s}_trial{t}.npy, "
      "..._window_s{s}_trial{t}.npy (..._window.npy with --width), ..._fixed.npy, ..._band.npy");
  cmd.add_option("--paths-n", o.paths_n,
                 "Also probe every attention path a user calls (exact, band, lsh; float32 and "
                 "float64; one head per call and multi-head) at this n against a dense "
                 "long-double oracle: rows path-exact, path-band, path-lsh (0: none; at most "
                 "4096)")
      ->capture_default_str();
  o.plant.declare(cmd);
}

// The options that do not depend on the data (the scales are resolved before).
void validate_attention_options(const AttentionOptionsCli& o) {
  require_nonempty("--s", o.s.size());  // each value is checked once, in HashParameters
  require_at_least("--trials", o.trials, 1);
  require_nonempty("--estimator", o.estimator.size());
  for (const auto& e : o.estimator)
    if (e != "lsh" && e != "fixed" && e != "window" && e != "band")
      throw UsageError(
          fmt::format("--estimator accepts lsh, fixed, window, band (got '{}')", detail::printable(e)));
  validate_band_attention_options({.tol = o.band_tol, .attention = {}});  // the estimator's own check, up front
  if (o.reference != "dense" && o.reference != "band")
    throw UsageError(
        fmt::format("--reference accepts dense, band (got '{}')", detail::printable(o.reference)));
  if (!(o.reference_tol > 0 && o.reference_tol < 1))
    throw UsageError(fmt::format("--reference-tol must be a number in (0, 1), got {}",
                                 format_value(o.reference_tol)));
  require_at_least("--width", o.width, 0);
  if (o.paths_n < 0 || o.paths_n > kPathMaxN)
    throw UsageError(fmt::format("--paths-n must be 0 (no path rows) or in [1, {}], got {}",
                                 kPathMaxN, o.paths_n));
  require_positive_finite("--qk-scale", o.qk_scale);
  if (!o.save_outputs.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.save_outputs, ec);
    if (ec || !std::filesystem::is_directory(o.save_outputs))
      throw UsageError(fmt::format("--save-outputs: cannot create the directory '{}' ({})",
                                   detail::printable(o.save_outputs, 200),
                                   ec ? ec.message() : "a file is in the way"));
  }
}

// --qkv DIR: the one problem the files hold, with one scale per head.
Problem problem_from_files(const CLI::App& cmd, const AttentionOptionsCli& o, std::size_t scales) {
  if (cmd.count("--n") || cmd.count("--d"))
    throw UsageError("--n and --d come from the .npy files with --qkv DIR; drop them");
  QkvData data = load_qkv_dir(o.qkv);
  const std::int64_t heads = std::max({data.q.heads, data.k.heads, data.v.heads});
  if (heads > 1 && static_cast<std::int64_t>(scales) != heads)
    throw UsageError(fmt::format(
        "--qkv: the files have {} heads, so give {} scales (--alibi-heads {} or --sigma "
        "with {} values), got {}",
        heads, heads, heads, heads, scales));
  const std::int64_t n = data.q.n(), d = data.q.d();
  return {n, d, std::move(data)};
}

// Synthetic Q, K, V for every (n, d), after checking that they fit in memory.
std::vector<Problem> synthetic_problems(const AttentionOptionsCli& o, const SweepOptions& sweep,
                                        std::size_t scales) {
  require_at_least("--n", o.n, 1);
  require_at_least("--d", o.d, 1);
  // Synthetic Q, K, V (float64) stay in memory for the whole run; each
  // running cell holds about five more n x d arrays (outputs, per-row
  // state). Checked before anything is generated.
  double inputs = 0, largest = 0;
  for (auto n : o.n)
    for (auto d : o.d) {
      const double nd = static_cast<double>(n) * static_cast<double>(d) * 8.0;
      inputs += 3 * nd;
      largest = std::max(largest, 5 * nd);
    }
  const double concurrent = std::min<double>(resolve_threads(sweep.threads),
                                             static_cast<double>(o.n.size() * o.d.size() * scales));
  require_memory("attention (synthetic Q, K, V and the running cells)",
                 inputs + concurrent * largest, sweep);
  std::vector<Problem> problems;
  for (auto n : o.n)
    for (auto d : o.d) problems.push_back({n, d, synthetic_qkv(o.seed, n, d, o.qk_scale)});
  return problems;
}

// Provenance of --qkv DIR: which bytes were read, as TOML comments (so the
// recorded config still runs, and part of the sweep's fingerprint, so
// --resume and merge refuse to mix runs on different files). `poslsh rerun`
// checks every "# input PATH sha256 HEX" line before it runs.
std::string input_file_note(const std::string& qkv_dir) {
  std::string note;
  for (const char* f : {"q.npy", "k.npy", "v.npy"}) {
    const std::string file = (std::filesystem::absolute(qkv_dir) / f).lexically_normal().string();
    note += fmt::format("# input {} sha256 {} ({} bytes)\n", file, sha256_file(file, "--qkv"),
                        std::filesystem::file_size(file));
  }
  return note;
}

// The reference T* of a cell: dense exact attention (every key), or
// certified band-exact attention at --reference-tol, whose error bound
// (reference_bound, its certificate) every check adds to the margin of a
// measured error; its row statistics carry their slack into the
// approximations' certificates (attention_bounds.h).
struct Reference {
  RowMatrix<double> exact;
  SoftmaxRowStats stats;
  double bound = 0.0;
};

// A value that does not apply to an estimator (s and trial of fixed blocks
// and of an explicit-width window, the width of LSH, the block size of a
// window) is an empty cell, which CSV readers load as NaN; a placeholder 0
// would be averaged and plotted as if it were measured.
constexpr std::int64_t kNotApplicable = -1;
std::string cell_text(std::int64_t v) {
  return v == kNotApplicable ? std::string() : std::to_string(v);
}

// The errors of the same estimator on the control sampler's hashes
// (control_sampler.h), on lsh rows only: the error-law lines compare their
// law with that of the tested trials'.
struct ControlErrors {
  double max_error = NAN, rel_frobenius_error = NAN, scale_projection = NAN;
};
std::string cell_text(double v) { return std::isnan(v) ? std::string() : format_value(v); }

// The rows of one (problem, head) cell, estimator by estimator.
class CellRows {
 public:
  CellRows(const AttentionOptionsCli& o, const Problem& p, const AttentionCell& cell, int threads)
      : o_(o),
        p_(p),
        head_(cell.head),
        sigma_(cell.hashes.front().sigma()),
        hashes_(cell.hashes),
        form_(o.causal ? Form::kCausal : Form::kSymmetric),
        q_(p.data.q.head(cell.head)),
        k_(p.data.k.head(cell.head)),
        v_(p.data.v.head(cell.head)),
        opts_{.threads = threads} {}

  std::vector<CsvRow> run(std::uint64_t seed) {
    compute_reference();
    save("exact", ref_.exact);
    if (o_.wants("fixed")) fixed();
    if (o_.wants("window") && o_.width > 0) window(kNotApplicable, kNotApplicable, o_.width);
    if (o_.wants("band")) band();
    lsh_and_matched_windows(seed);
    return std::move(rows_);
  }

 private:
  void compute_reference() {
    if (o_.reference == "band") {
      BandAttentionOptions ref_opts;
      ref_opts.tol = o_.reference_tol;
      ref_opts.attention = opts_;
      auto ref = band_exact_attention<double>(q_, k_, v_, sigma_, form_, ref_opts);
      ref_.exact = std::move(ref.output);
      ref_.stats = std::move(ref.stats);
      ref_.bound = ref.certificate();
    } else {
      ref_.exact = exact_alibi_attention<double>(q_, k_, v_, sigma_, form_, opts_, &ref_.stats);
    }
    exact_norm_ = ref_.exact.norm();
    scale_direction();
  }

  // The unit direction in which exact attention moves when sigma grows:
  // T*(sigma e^0.05) - T*(sigma e^-0.05), normalised (zero if it vanishes).
  // A sampler whose blocks are too long or too short biases the output
  // along it, coherently over rows, while the noise spreads over every
  // direction: scale_projection = <T~ - T*, direction> is the error-law
  // lines' first-order statistic. Any direction fixed before the hashes are
  // drawn keeps the trials' projections i.i.d. under a sound sampler, so it
  // is taken from band-exact attention at a loose tolerance (near-linear
  // cost, a direction accurate to about 1e-8).
  void scale_direction() {
    BandAttentionOptions band;
    band.tol = 1e-8;
    band.attention = opts_;
    auto at = [&](double scale) {
      return band_exact_attention<double>(q_, k_, v_, sigma_ * scale, form_, band).output;
    };
    direction_ = at(std::exp(0.05)) - at(std::exp(-0.05));
    const double norm = direction_.norm();
    if (norm > 0) direction_ /= norm;
  }

  double projection(const RowMatrix<double>& approx) const {
    return (approx - ref_.exact).cwiseProduct(direction_).sum();
  }

  // --save-outputs DIR: every output of this cell as a float64 .npy, (n, dv),
  // named by what made it; written to a .partial file and renamed, so an
  // interrupted run leaves no truncated array under a final name.
  void save(const std::string& what, const RowMatrix<double>& out) const {
    if (o_.save_outputs.empty()) return;
    const auto file = std::filesystem::path(o_.save_outputs) /
                      fmt::format("n{}_d{}_head{}_{}.npy", p_.n, p_.d, head_, what);
    const std::string partial = file.string() + ".partial";
    write_npy(partial, {out.rows(), out.cols()}, out.data(), NpyDtype::kFloat64);
    std::filesystem::rename(partial, file);
  }

  void emit(std::int64_t s, std::int64_t trial, const std::string& est, std::int64_t width,
            double kpq, std::int64_t largest, const RowMatrix<double>& approx,
            const AttentionBounds& b, double secs, const ControlErrors& control = {},
            double estimator_deviation = NAN, const std::string& digest = {}) {
    save(s == kNotApplicable ? est : fmt::format("{}_s{}_trial{}", est, s, trial), approx);
    const RowMatrix<double>& exact = ref_.exact;
    rows_.push_back({std::to_string(p_.n), std::to_string(p_.d), format_value(sigma_),
                     std::to_string(head_), form_ == Form::kCausal ? "causal" : "symmetric",
                     cell_text(s), cell_text(trial), est, cell_text(width), format_value(kpq),
                     cell_text(largest), format_value((approx - exact).cwiseAbs().maxCoeff()),
                     format_value((approx - exact).norm() / exact_norm_),
                     format_value(b.certificate), format_value(b.uniform_bound),
                     format_value(b.rounding_allowance), format_value(b.max_abs_logit),
                     format_value(secs), format_value(ref_.bound),
                     est == "lsh" ? format_value(projection(approx)) : std::string(),
                     cell_text(control.max_error), cell_text(control.rel_frobenius_error),
                     cell_text(control.scale_projection), cell_text(estimator_deviation),
                     digest, /* precision, layout: path rows only */ "", ""});
  }

  void window(std::int64_t s, std::int64_t trial, std::int64_t w) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto approx = sliding_window_attention<double>(q_, k_, v_, sigma_, w, form_, opts_);
    const double secs = seconds_since(t0);
    const auto b = window_attention_bounds(q_, k_, v_, sigma_, w, form_, ref_.stats, opts_);
    emit(s, trial, "window", w, window_keys_per_query(p_.n, w, form_), kNotApplicable, approx, b,
         secs);
  }

  void fixed() {
    const std::int64_t w =
        o_.width > 0 ? o_.width : std::max<std::int64_t>(1, std::llround(2 * sigma_));
    const auto mask = fixed_block_mask(p_.n, w, form_);
    const auto t0 = std::chrono::steady_clock::now();
    const auto approx = lsh_attention<double>(q_, k_, v_, mask, opts_);
    const double secs = seconds_since(t0);
    const auto b = lsh_attention_bounds(q_, k_, v_, sigma_, mask, ref_.stats, opts_);
    emit(kNotApplicable, kNotApplicable, "fixed", w, lsh_keys_per_query(mask), mask.largest_block(),
         approx, b, secs);
  }

  // Certified band-exact attention: the keys left out carry at most band_tol
  // of each row's mass; its certificate is a bound for any Q, K, V.
  void band() {
    BandAttentionOptions band_opts;
    band_opts.tol = o_.band_tol;
    band_opts.attention = opts_;
    const auto t0 = std::chrono::steady_clock::now();
    const auto result = band_exact_attention<double>(q_, k_, v_, sigma_, form_, band_opts);
    const double secs = seconds_since(t0);
    AttentionBounds b;
    b.certificate = result.certificate();
    b.uniform_bound = result.certificate();
    b.rounding_allowance = kRoundingAllowance * v_.cwiseAbs().maxCoeff();
    b.max_abs_logit = ref_.stats.max_abs_logit;
    const std::int64_t widest =
        *std::max_element(result.tile_half_width.begin(), result.tile_half_width.end());
    emit(kNotApplicable, kNotApplicable, "band", widest, result.keys_per_query, kNotApplicable,
         result.output, b, secs);
  }

  // Per (s, trial): LSH with the head's hashes, and without --width the
  // window of the same cost.
  void lsh_and_matched_windows(std::uint64_t seed) {
    const bool want_lsh = o_.wants("lsh"), matched_window = o_.wants("window") && o_.width == 0;
    if (!want_lsh && !matched_window) return;
    for (const HashParameters& hash : hashes_) {
      const std::int64_t s = hash.s();
      for (std::int64_t trial = 0; trial < o_.trials; ++trial) {
        const auto hashes =
            draw_hashes(seed, o_.plant.defect(), static_cast<std::uint64_t>(trial), hash);
        const MaskMean mask = estimator_mask(p_.n, hashes, form_, bug(), binning());
        const double kpq = lsh_keys_per_query(mask);
        if (want_lsh) {
          const auto t0 = std::chrono::steady_clock::now();
          const auto approx = lsh_attention<double>(q_, k_, v_, mask, opts_);
          const double secs = seconds_since(t0);
          const auto b = lsh_attention_bounds(q_, k_, v_, sigma_, mask, ref_.stats, opts_);
          emit(s, trial, "lsh", kNotApplicable, kpq, mask.largest_block(), approx, b, secs,
               control_errors(seed, trial, s), estimator_deviation(hashes, mask, approx),
               hash_digest(hashes));
        }
        if (matched_window) window(s, trial, equal_cost_half_width(kpq, form_));
      }
    }
  }

  // The same estimator on the control sampler's hashes of (seed, trial, s),
  // never planted: what the error-law lines compare the tested trials with.
  ControlErrors control_errors(std::uint64_t seed, std::int64_t trial, std::int64_t s) const {
    const MaskMean mask = estimator_mask(
        p_.n, control_hashes(seed, static_cast<std::uint64_t>(trial), s, sigma_), form_, bug(),
        binning());
    const auto approx = lsh_attention<double>(q_, k_, v_, mask, opts_);
    return {(approx - ref_.exact).cwiseAbs().maxCoeff(),
            (approx - ref_.exact).norm() / exact_norm_, projection(approx)};
  }

  EstimatorBug bug() const { return o_.plant.defect().estimator_bug; }
  BinningBug binning() const { return o_.plant.defect().binning_bug; }

  // The estimator against its definition (estimator_probe.h) on the row's
  // hashes, in both forms whichever the table has: the causal and the
  // symmetric kernels share tiles but not their edges.
  double estimator_deviation(const std::vector<PositionalHash>& hashes, const MaskMean& mask,
                             const RowMatrix<double>& approx) const {
    const Eigen::VectorXd x = v_.col(0);
    double worst = std::max(attention_estimator_deviation(q_, k_, v_, hashes, form_, approx),
                            mask_product_deviation(mask, hashes, x));
    const Form other = form_ == Form::kCausal ? Form::kSymmetric : Form::kCausal;
    const MaskMean other_mask = estimator_mask(p_.n, hashes, other, bug(), binning());
    const auto other_approx = lsh_attention<double>(q_, k_, v_, other_mask, opts_);
    worst = std::max(worst, attention_estimator_deviation(q_, k_, v_, hashes, other, other_approx));
    return std::max(worst, mask_product_deviation(other_mask, hashes, x));
  }

  const AttentionOptionsCli& o_;
  const Problem& p_;
  const std::int64_t head_;
  const double sigma_;
  const std::vector<HashParameters>& hashes_;
  const Form form_;
  const ConstRowMatrixRef<double> q_, k_, v_;
  const AttentionOptions opts_;
  Reference ref_;
  double exact_norm_ = 0;
  RowMatrix<double> direction_;
  std::vector<CsvRow> rows_;
};

// `poslsh attention` (and attention-length, the same with other defaults):
// cells are (problem, head), a problem being one (n, d) data set.
class Attention : public SweptExperiment<AttentionCell> {
 public:
  explicit Attention(const AttentionOptionsCli& defaults)
      : o_(defaults), sigma_has_default_(!defaults.sigma.empty()) {}

  void declare_options(CLI::App& cmd) override {
    declare_attention_options(cmd, o_, sigma_has_default_);
  }

  void validate(CLI::App& cmd, const SweepOptions& sweep) override {
    scales_ = resolve_alibi_scales(cmd, o_.sigma, o_.alibi_heads, o_.independent_heads, true);
    validate_attention_options(o_);
    o_.plant.resolve();
    const bool from_files = o_.qkv != "synthetic";
    problems_.clear();
    if (from_files)
      problems_.push_back(problem_from_files(cmd, o_, scales_.sigmas.size()));
    else
      problems_ = synthetic_problems(o_, sweep, scales_.sigmas.size());
    input_note_ = from_files ? input_file_note(o_.qkv) : "";
    cells_ = make_cells();
    // Threads left over when there are fewer cells than workers go inside a
    // cell; results do not depend on it (bit-identical for any thread count).
    const int workers = resolve_threads(sweep.threads);
    const auto cell_count = static_cast<int>(problems_.size() * scales_.sigmas.size());
    inner_threads_ =
        std::max<int>(1, workers / std::max<int>(1, std::min<int>(workers, cell_count)));
  }

  std::vector<std::string> columns() const override { return attention_columns(); }
  std::vector<std::string> timing_columns() const override { return {"seconds"}; }

  std::vector<AttentionCell> cells() const override {
    std::vector<AttentionCell> cells;
    return cells_;
  }

  // Every (n, sigma, s) is checked here, once (HashParameters); the cells
  // draw from the objects they hold.
  std::vector<AttentionCell> make_cells() const {
    std::vector<AttentionCell> cells;
    for (std::size_t p = 0; p < problems_.size(); ++p)
      for (std::size_t h = 0; h < scales_.sigmas.size(); ++h) {
        std::vector<HashParameters> hashes;
        for (const std::int64_t s : o_.s)
          hashes.emplace_back(problems_[p].n, scales_.sigmas[h], s);
        cells.push_back({p, static_cast<std::int64_t>(h), std::move(hashes)});
      }
    if (o_.paths_n > 0) cells.push_back({problems_.size(), 0, {}});
    return cells;
  }

  std::vector<CsvRow> rows(const AttentionCell& cell) const override {
    if (cell.problem == problems_.size())
      return attention_path_rows({.n = o_.paths_n,
                                  .seed = o_.seed,
                                  .form = o_.causal ? Form::kCausal : Form::kSymmetric,
                                  .defect = o_.plant.defect()});
    const auto head = static_cast<std::size_t>(cell.head);
    // The head's hashes (Q, K, V are the data: a synthetic set is shared by the heads).
    const std::uint64_t seed = head_seed(o_.seed, head, o_.independent_heads);
    return CellRows(o_, problems_[cell.problem], cell, inner_threads_).run(seed);
  }

  std::string label(const AttentionCell& cell) const override {
    if (cell.problem == problems_.size()) return fmt::format("paths n={}", o_.paths_n);
    const auto& p = problems_[cell.problem];
    return fmt::format("n={} d={} sigma={}", p.n, p.d,
                       format_value(scales_.sigmas[static_cast<std::size_t>(cell.head)]));
  }

  // Longer contexts cost more (quadratically with the dense reference):
  // started first, the longest does not run alone at the end.
  double cost(const AttentionCell& cell) const override {
    if (cell.problem == problems_.size()) return static_cast<double>(o_.paths_n);
    return static_cast<double>(problems_[cell.problem].n);
  }

  std::string config_note() const override { return scales_.config_note() + input_note_; }
  std::uint64_t seed() const override { return o_.seed; }

  RecordedOptions recorded_options(const CLI::App& cmd) const override {
    RecordedOptions recorded;
    record_alibi_scales(cmd, recorded);  // --alibi-heads H replaces --sigma
    o_.plant.record(cmd, recorded);      // a sound run records no --plant-defect
    // Where outputs go: they do not change the table.
    recorded.omitted.insert("save-outputs");
    // No path probe: the recorded config (and fingerprint) of a run before
    // --paths-n existed.
    if (o_.paths_n == 0) recorded.omitted.insert("paths-n");
    // --qkv DIR gives n and d from its files (n, d and qk-scale describe
    // synthetic data only) and is recorded as an absolute path.
    if (option_given(cmd, "qkv", "synthetic")) {
      recorded.omitted.insert({"n", "d", "qk-scale"});
      const auto& given = cmd.get_option("--qkv")->results();
      recorded.replaced["qkv"] =
          std::filesystem::absolute(given.front()).lexically_normal().string();
    }
    // --band-tol applies to the band estimator only (the default estimators
    // do not include it).
    const auto& estimators = cmd.get_option("--estimator")->results();
    if (std::find(estimators.begin(), estimators.end(), "band") == estimators.end())
      recorded.omitted.insert("band-tol");
    return recorded;
  }

 private:
  AttentionOptionsCli o_;
  bool sigma_has_default_;
  AlibiScales scales_;
  std::vector<Problem> problems_;
  std::vector<AttentionCell> cells_;
  std::string input_note_;  // --qkv DIR: the files' SHA-256
  int inner_threads_ = 1;
};

// `poslsh attention` with `defaults` as its options' defaults, on a
// subcommand `name` (attention-length is the same experiment with defaults
// for a length-extrapolation table, so a config can hold both sections).
Action add_attention_like_command(CLI::App& parent, const std::string& name,
                                  const std::string& summary, const AttentionOptionsCli& defaults) {
  return swept_command(parent, name, summary, std::make_shared<Attention>(defaults));
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
    // attention's error-vs-n script, into a file of its own
    .figures = {{.script = "attention_error_vs_n",
                 .title = "Length extrapolation: attention output error against n at fixed s",
                 .file = "attention_length_vs_n"}},
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
    .figures = {{.script = "attention_error_vs_s", .title = "Attention output error against s"},
                {.script = "attention_error_vs_n", .title = "Attention output error against n"}},
    .bench_figures = {{.script = "attention_time_vs_n", .title = "Attention time against n"}},
});

}  // namespace attention_experiment
}  // namespace poslsh
