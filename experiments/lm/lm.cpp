#include "experiments/lm/lm.h"

#include <fmt/format.h>
#include <poslsh/alibi_heads.h>
#include <poslsh/input_error.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "internal/printable.h"
#include "runner/atomic_file.h"
#include "runner/child_process.h"
#include "runner/cli_common.h"
#include "runner/sweep.h"
#include "runner/swept_experiment.h"

namespace poslsh {

namespace fs = std::filesystem;

const std::vector<std::string>& lm_columns() {
  static const std::vector<std::string> columns = {
      "variant", "train_s", "seed",  "phase", "steps",   "eval",   "eval_s",
      "step",    "pos_lo",  "pos_hi", "trial", "layer",   "head",   "sigma",
      "context", "metric",  "value", "stderr", "count",  "margin", "seconds", "step_cpu_seconds"};
  return columns;
}

// Named, not anonymous: the unity build puts other experiments' helpers beside these.
namespace lm_cli {

const std::vector<std::string> kVariants = {"exact",  "lsh",         "nobias",
                                            "fixed",  "window",      "fixed-block",
                                            "sinusoidal"};

// The only place the language models' settings have defaults: the Python
// cells (python/poslsh/lm/cell.py) receive every field from here.
struct LmOptions {
  std::string corpus = "bible-kjv";
  std::vector<std::string> variant = kVariants;
  std::vector<std::int64_t> s = {1, 4, 10, 20};
  std::int64_t seed = 0, seeds = 3;
  std::int64_t layers = 4, heads = 4, width = 128, context = 128, batch = 16, steps = 400;
  std::vector<double> sigmas;  // one per head; empty: Press et al.'s slopes
  double lr = 3e-3, weight_decay = 0.1;
  std::int64_t warmup = 40, checkpoint_every = 50;
  std::int64_t finetune_steps = 0, curve_every = 50, curve_batches = 4;
  std::vector<std::int64_t> eval_lengths = {1, 2, 4};
  std::int64_t eval_batches = 16, eval_batch = 8;
  std::vector<std::int64_t> swap_s = {1, 2, 4, 8, 16, 32, 64};
  std::int64_t swap_trials = 8;
  // The context-use probe: each model's validation loss at n with every query
  // cut to its last w positions (evaluation only), one row per w.
  std::vector<std::int64_t> context_probe = {1, 8, 64};
  // The byte n-gram baselines (Witten-Bell, orders 0 .. ngram_order) on the
  // models' own validation and test windows: one cell; -1: none.
  std::int64_t ngram_order = 5;
  // The equivalence margin of the verdicts (bits per byte): a paired
  // difference is "comparable" only when its whole 95% interval lies in
  // [-margin, +margin] (lm_margin_verdict). Recorded in every row, so the
  // summary and `poslsh check` judge by the margin the run declared.
  double margin = 0.02;
  // The bases every variant is fine-tuned from (exact ALiBi, and a model
  // trained without positional bias); each fine-tune's reference is the
  // exact-ALiBi fine-tune from the same base.
  std::vector<std::string> finetune_from = {"exact"};
  // lsh's hashes: "shared" (one draw per layer and step, rescaled per head by
  // sigma_h, as `poslsh attention` draws them) or "per-head" (each head its
  // own independent draw: trial (step * layers + layer) * heads + head).
  std::string draws = "shared";
  std::string keep_models;  // "": keep no model
  std::string python = "/usr/bin/python3";
  SweepOptions sweep;

  std::vector<double> head_sigmas() const {
    return sigmas.empty() ? alibi_head_sigmas(static_cast<int>(heads)) : sigmas;
  }
};

// The variants that cannot fine-tune another model: no positional bias (the
// base of its own fine-tunes) and sinusoidal (its position embedding is part
// of the model, which an ALiBi base does not have).
bool fine_tunes(const std::string& variant) { return variant != "nobias" && variant != "sinusoidal"; }

// The variants with an s: lsh at s hashes, fixed grids and windows of its cost.
bool has_s(const std::string& variant) {
  return variant == "lsh" || variant == "fixed" || variant == "window";
}

// One training: a cell of the sweep. phase "train": from scratch;
// "finetune": from the exact-ALiBi model of the same seed; "finetune-B": from
// the model of variant B (finetune_from) of the same seed; "baseline": no
// training, the n-gram baselines (variant "ngram", every order in one cell).
struct Training {
  std::string variant;
  std::int64_t s = 0;  // lsh: hashes; fixed, window: the lsh cost they match
  std::int64_t seed = 0;
  std::string phase = "train";
  std::string base;  // the fine-tune's base variant ("" when training from scratch)
  std::string label() const {
    if (phase == "baseline") return "byte n-gram baselines";
    return fmt::format("{}{}{} seed={}", finetune_prefix(" "), variant,
                       has_s(variant) ? fmt::format(" s={}", s) : "", seed);
  }
  std::string file_stem() const {
    if (phase == "baseline") return variant;
    return fmt::format("{}{}{}_seed{}", finetune_prefix("_"), variant,
                       has_s(variant) ? fmt::format("_s{}", s) : "", seed);
  }
  // "" (train), "finetune_" (from exact), "finetune_from_nobias_" (from nobias).
  std::string finetune_prefix(const std::string& sep) const {
    if (phase == "train" || phase == "baseline") return "";
    return base == "exact" ? "finetune" + sep : fmt::format("finetune{0}from{0}{1}{0}", sep, base);
  }
};

// The phase column of a fine-tune from `base`: exact keeps the name it always had.
std::string finetune_phase(const std::string& base) {
  return base == "exact" ? "finetune" : "finetune-" + base;
}

// Seed by seed: a seed's trainings, then its fine-tunes; the n-gram baselines
// last. A --shard of whole seeds (6 seeds in 1, 2, 3 or 6 shards) then holds
// the exact models its fine-tunes start from, instead of training them again.
std::vector<Training> trainings(const LmOptions& o) {
  std::vector<Training> out;
  const bool with_exact = std::find(o.variant.begin(), o.variant.end(), "exact") != o.variant.end();
  const bool fine_tuned = o.finetune_steps > 0 && with_exact;
  for (std::int64_t seed = o.seed; seed < o.seed + o.seeds; ++seed) {
    for (const auto& v : o.variant)
      for (std::int64_t s : has_s(v) ? o.s : std::vector<std::int64_t>{0})
        out.push_back({v, s, seed, "train", ""});
    if (!fine_tuned) continue;
    for (const auto& base : o.finetune_from)
      for (const auto& v : o.variant)
        if (fine_tunes(v))
          for (std::int64_t s : has_s(v) ? o.s : std::vector<std::int64_t>{0})
            out.push_back({v, s, seed, finetune_phase(base), base});
  }
  if (o.ngram_order >= 0) out.push_back({"ngram", 0, o.seed, "baseline", ""});
  return out;
}

void validate(const LmOptions& o) {
  require_nonempty("--variant", o.variant.size());
  for (const auto& v : o.variant)
    if (std::find(kVariants.begin(), kVariants.end(), v) == kVariants.end())
      throw UsageError(
          fmt::format("--variant accepts {} (got '{}')", fmt::join(kVariants, ", "), detail::printable(v)));
  require_hash_count("--s", o.s);
  require_at_least("--seed", o.seed, 0);
  for (auto [name, value, min] : {std::tuple{"--seeds", o.seeds, 1},
                                  {"--layers", o.layers, 1},
                                  {"--heads", o.heads, 1},
                                  {"--width", o.width, 1},
                                  {"--context", o.context, 2},
                                  {"--batch", o.batch, 1},
                                  {"--steps", o.steps, 1},
                                  {"--warmup", o.warmup, 0},
                                  {"--checkpoint-every", o.checkpoint_every, 1},
                                  {"--finetune-steps", o.finetune_steps, 0},
                                  {"--curve-every", o.curve_every, 0},
                                  {"--curve-batches", o.curve_batches, 1},
                                  {"--eval-batches", o.eval_batches, 2},
                                  {"--eval-batch", o.eval_batch, 1},
                                  {"--swap-trials", o.swap_trials, 1}})
    require_at_least(name, value, min);
  if (o.width % o.heads != 0)
    throw UsageError(
        fmt::format("--width must be a multiple of --heads ({}), got {}", o.heads, o.width));
  if (!o.sigmas.empty() && static_cast<std::int64_t>(o.sigmas.size()) != o.heads)
    throw UsageError(fmt::format(
        "--sigmas must hold one ALiBi scale per head (--heads {}), got {} (or leave it out: "
        "Press et al.'s slopes)",
        o.heads, o.sigmas.size()));
  if (!o.sigmas.empty()) require_positive_finite("--sigmas", o.sigmas);
  require_positive_finite("--lr", o.lr);
  if (!(o.weight_decay >= 0 && std::isfinite(o.weight_decay)))
    throw UsageError(fmt::format("--weight-decay must be a finite number >= 0 (got {})",
                                 format_value(o.weight_decay)));
  require_nonempty("--eval-lengths", o.eval_lengths.size());
  require_at_least("--eval-lengths", o.eval_lengths, 1);
  require_at_least("--swap-s", o.swap_s, 1);
  require_at_least("--context-probe", o.context_probe, 1);
  require_at_least("--ngram-order", o.ngram_order, -1);
  if (o.ngram_order > 6)
    throw UsageError(fmt::format("--ngram-order accepts -1 (none) to 6 (got {})", o.ngram_order));
  require_positive_finite("--margin", o.margin);
  if (o.draws != "shared" && o.draws != "per-head")
    throw UsageError(
        fmt::format("--draws accepts shared, per-head (got '{}')", detail::printable(o.draws)));
  require_nonempty("--finetune-from", o.finetune_from.size());
  for (std::size_t i = 0; i < o.finetune_from.size(); ++i) {
    const std::string& b = o.finetune_from[i];
    if ((b != "exact" && b != "nobias") ||
        std::find(o.finetune_from.begin(), o.finetune_from.begin() + i, b) !=
            o.finetune_from.begin() + i)
      throw UsageError(fmt::format(
          "--finetune-from accepts exact, nobias, each at most once (got '{}')", detail::printable(b)));
  }
}

// The folder holding the `poslsh` package beside this binary (build tree:
// <build>/python; install: <prefix>/lib/python3/dist-packages), put first on
// the child's PYTHONPATH; "" when neither has it (a pip-installed package).
std::string python_package_dir() {
  const fs::path bin = fs::path(self_executable()).parent_path();
  for (const fs::path& dir : {bin / ".." / "python", bin / ".." / "lib/python3/dist-packages"})
    if (fs::exists(dir / "poslsh" / "lm" / "__main__.py")) return dir.lexically_normal().string();
  return "";
}

void put_package_on_path() {
  const std::string dir = python_package_dir();
  if (dir.empty()) return;
  const char* old = std::getenv("PYTHONPATH");
  ::setenv("PYTHONPATH", old && *old ? (dir + ":" + old).c_str() : dir.c_str(), 1);
}

// Each child computes on one thread (the cell spec's "threads"; the sweep
// runs cells side by side). numpy's and torch's BLAS keep their own pool,
// which torch.set_num_threads does not reach and which sizes itself to the
// machine: its threads split the matrix products differently, so the tables'
// bits would depend on the core count, and two cells' pools would fight for
// the same cores. One thread each, whatever the caller's environment.
void pin_blas_threads() {
  for (const char* pool : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                           "BLIS_NUM_THREADS"})
    ::setenv(pool, "1", 1);
}

// What the cells import, checked once up front so that a missing piece is one
// line naming what to install, not a traceback per cell.
void require_importable(const std::string& python) {
  if (run_child({python, "-c", "import poslsh.lm"}, true) != 0)
    throw UsageError(fmt::format(
        "--python: '{}' cannot import the package poslsh.lm (build it: cmake --build build "
        "--target poslsh_python, or pip install --no-build-isolation .)",
        detail::printable(python)));
  if (run_child({python, "-c", "import torch"}, true) != 0)
    throw UsageError(
        fmt::format("--python: '{}' cannot import torch (install Debian's "
                    "python3-torch: scripts/deps installs it)",
                    detail::printable(python)));
}

// Runs `python3 -m poslsh.lm MODE ARG RESULT` and returns RESULT's text. Exit
// 2: unusable input, RESULT holds the one-line reason; 3: a bug in the
// package (its traceback on stderr), reported as ours; 130/143: interrupted.
std::string run_python(const std::string& python, const std::string& mode, const std::string& arg,
                       const fs::path& result) {
  const int rc = run_child({python, "-m", "poslsh.lm", mode, arg, result.string()});
  if (rc == 130 || rc == 143) throw CellInterrupted(rc - 128);
  std::string text = fs::exists(result) ? read_file("lm", result.string()) : std::string();
  fs::remove(result);
  if (rc == 2 && !text.empty()) throw InputError(single_line(text));
  if (rc == 3)
    throw std::logic_error(fmt::format("lm: `{} -m poslsh.lm {}` failed (its traceback above)",
                                       detail::printable(python, 200), mode));
  if (rc != 0)
    throw std::runtime_error(
        fmt::format("lm: `{} -m poslsh.lm {}` exited with code {}", python, mode, rc));
  return text;
}

// "# corpus NAME sha256 HEX (train / validation / test bytes)": provenance,
// and part of the fingerprint, so --resume never mixes two texts.
std::string corpus_note(const LmOptions& o) {
  const fs::path result =
      fs::temp_directory_path() / fmt::format("poslsh-lm-corpus-{}.txt", ::getpid());
  std::istringstream in(run_python(o.python, "corpus", o.corpus, result));
  std::string sha;
  std::int64_t train = 0, validation = 0, test = 0;
  in >> sha >> train >> validation >> test;
  return fmt::format("# corpus {} sha256 {} ({} / {} / {} bytes train / validation / test)\n",
                     o.corpus, sha, train, validation, test);
}

// The cell's spec for python/poslsh/lm/cell.py's CellSpec (its field names).
std::string cell_spec(const LmOptions& o, const Training& t, const fs::path& work,
                      const fs::path& qkv) {
  const Training base{t.base.empty() ? "exact" : t.base, 0, t.seed, "train", ""};
  const bool exports = t.variant == "exact" && t.phase == "train";
  const nlohmann::ordered_json spec = {
      {"corpus", o.corpus},
      {"variant", t.variant},
      {"s", t.s},
      {"seed", t.seed},
      {"phase", t.phase == "train" || t.phase == "baseline" ? t.phase : "finetune"},
      {"base", t.base.empty() ? "exact" : t.base},
      {"draws", o.draws},
      {"layers", o.layers},
      {"heads", o.heads},
      {"width", o.width},
      {"sigmas", o.head_sigmas()},
      {"context", o.context},
      {"batch", o.batch},
      {"steps", o.steps},
      {"lr", o.lr},
      {"warmup", o.warmup},
      {"weight_decay", o.weight_decay},
      {"checkpoint_every", o.checkpoint_every},
      {"finetune_steps", o.finetune_steps},
      {"curve_every", o.curve_every},
      {"curve_batches", o.curve_batches},
      {"eval_lengths", o.eval_lengths},
      {"eval_batches", o.eval_batches},
      {"eval_batch", o.eval_batch},
      {"swap_s", o.swap_s},
      {"swap_trials", o.swap_trials},
      {"context_probe", o.context_probe},
      {"ngram_order", std::max<std::int64_t>(o.ngram_order, 0)},
      {"checkpoint", (work / (t.file_stem() + ".pt")).string()},
      {"base_checkpoint", t.phase != "train" ? (work / (base.file_stem() + ".pt")).string() : ""},
      {"qkv_dir", exports ? (qkv / fmt::format("seed{}", t.seed)).string() : ""},
      {"keep_dir", o.keep_models},
      {"file_stem", t.file_stem()},
      {"threads", 1},
      {"progress", !o.sweep.quiet}};
  return spec.dump();
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string f; std::getline(ss, f, '\t');) out.push_back(f);
  if (!line.empty() && line.back() == '\t') out.push_back("");
  return out;
}

// A number as every table writes it (format_value); "" stays "".
std::string as_number(const std::string& text) {
  return text.empty() ? text : format_value(std::stod(text));
}

// The cell's rows: the child's fields (python/poslsh/lm/rows.py's Row: eval,
// eval_s, step, pos_lo, pos_hi, trial, layer, head, sigma, context, metric,
// value, stderr, count) after the cell's own (variant, train_s, seed, phase,
// steps), then the run's margin, the timings last. The baseline cell's rows
// lead with their own variant (ngram-K) and have no s, seed or steps: an
// n-gram is a deterministic function of the training bytes.
std::vector<CsvRow> cell_rows(const LmOptions& o, const Training& t, const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::string seconds, step_seconds;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto f = split_tabs(line);
    if (f.size() == 3 && f[0] == "seconds")
      seconds = as_number(f[1]), step_seconds = as_number(f[2]);
    else if (f.size() == 14 || (f.size() == 15 && t.phase == "baseline"))
      lines.push_back(std::move(f));
    else
      throw std::logic_error(fmt::format("lm: unreadable cell output line '{}'", line));
  }
  std::vector<CsvRow> rows;
  for (const auto& line : lines) {
    const bool baseline = line.size() == 15;
    const std::vector<std::string> f(line.begin() + (baseline ? 1 : 0), line.end());
    CsvRow row = {baseline ? line[0] : t.variant, has_s(t.variant) ? std::to_string(t.s) : "",
                  baseline ? "" : std::to_string(t.seed), t.phase,
                  baseline ? "" : std::to_string(t.phase == "train" ? o.steps : o.finetune_steps)};
    for (std::size_t i = 0; i < f.size(); ++i)
      row.push_back(i == 8 || i == 11 || i == 12 ? as_number(f[i]) : f[i]);  // sigma, value, stderr
    row.insert(row.end(), {format_value(o.margin), seconds, step_seconds});
    rows.push_back(std::move(row));
  }
  return rows;
}

// Beside the table: <stem>.checkpoints/ (one per training; removed when the
// sweep ends well) and <stem>_qkv/seed<S>/layer<l>/{q,k,v}.npy, the exact
// models' own Q, K, V (`poslsh attention --qkv` reads such a folder).
fs::path beside_table(const std::string& out, const std::string& suffix) {
  const fs::path p(out);
  return p.parent_path() / (p.stem().string() + suffix);
}

// --keep-models must be a folder we can write: probe a file inside it if it
// exists, else the folder itself as a new file beside its parent.
std::string keep_probe(const std::string& dir) {
  return fs::is_directory(dir) ? (fs::path(dir) / ".poslsh-probe").string() : dir;
}

std::string expected_blocks(const LmOptions& o) {
  std::vector<std::string> out;
  for (double sigma : o.head_sigmas())
    out.push_back(fmt::format("{:.3g}", static_cast<double>(o.context - 1) / sigma + 1));
  return fmt::format("{}", fmt::join(out, ", "));
}

void add_model_options(CLI::App& cmd, LmOptions& o) {
  cmd.add_option("--layers", o.layers, "Transformer blocks (>= 1)")->capture_default_str();
  cmd.add_option("--heads", o.heads, "Attention heads")->capture_default_str();
  cmd.add_option("--sigmas", o.sigmas,
                 "ALiBi scale of each head (one per head, > 0; default: Press et al.'s slopes, "
                 "sigma_h = 2^(8(h+1)/heads))")
      ->delimiter(',');
  cmd.add_option("--width", o.width, "Model width (a multiple of --heads)")->capture_default_str();
  cmd.add_option("--context", o.context, "Training context n (bytes, >= 2)")->capture_default_str();
  cmd.add_option("--batch", o.batch, "Sequences per training step")->capture_default_str();
  cmd.add_option("--steps", o.steps, "Training steps (AdamW)")->capture_default_str();
  cmd.add_option("--lr", o.lr, "Peak learning rate (> 0)")->capture_default_str();
  cmd.add_option("--warmup", o.warmup, "Linear warm-up steps, then cosine decay to lr/10")
      ->capture_default_str();
  cmd.add_option("--weight-decay", o.weight_decay, "AdamW weight decay of the matrices (>= 0)")
      ->capture_default_str();
  cmd.add_option("--checkpoint-every", o.checkpoint_every, "Steps between checkpoints")
      ->capture_default_str();
}

void add_evaluation_options(CLI::App& cmd, LmOptions& o) {
  cmd.add_option("--eval-lengths", o.eval_lengths,
                 "Evaluation contexts as multiples of --context (length extrapolation)")
      ->capture_default_str()
      ->delimiter(',');
  cmd.add_option("--eval-batches", o.eval_batches,
                 "Validation batches (>= 2; one fresh hash draw each)")
      ->capture_default_str();
  cmd.add_option("--eval-batch", o.eval_batch, "Windows per validation batch")
      ->capture_default_str();
  cmd.add_option("--curve-every", o.curve_every,
                 "Learning curve: training and validation loss every this many steps (0: none)")
      ->capture_default_str();
  cmd.add_option("--curve-batches", o.curve_batches,
                 "Learning curve: validation batches per point")
      ->capture_default_str();
  cmd.add_option("--swap-s", o.swap_s,
                 "Swap-in: hashes at which positional LSH replaces the exact model's ALiBi")
      ->capture_default_str()
      ->delimiter(',');
  cmd.add_option("--swap-trials", o.swap_trials,
                 "Swap-in: independent hash draws per s for the output errors")
      ->capture_default_str();
  cmd.add_option("--context-probe", o.context_probe,
                 "Context use: validation loss at n with attention cut to each query's last w "
                 "positions, for every w here (evaluation only; rows val_bpb_ctx<w>)")
      ->capture_default_str()
      ->delimiter(',');
  cmd.add_option("--ngram-order", o.ngram_order,
                 "Baselines: interpolated Witten-Bell byte n-grams of orders 0 to this (<= 6), "
                 "scored on the models' windows (variants ngram-<k>; -1: none)")
      ->capture_default_str();
}

// One training per cell; the cells run `python3 -m poslsh.lm cell SPEC`.
class Lm : public SweptExperiment<Training> {
 public:
  void declare_options(CLI::App& cmd) override {
    cmd.add_option("--corpus", o_.corpus,
                   "Text: bible-kjv (Debian's bible-kjv) or the path of a text file")
        ->capture_default_str();
    cmd.add_option("--variant", o_.variant,
                   "Attention variants: exact, lsh, nobias, fixed (s shifted grids of lsh's cost), "
                   "window, fixed-block (the paper's one grid of width round(2 sigma)), "
                   "sinusoidal (absolute positions, no ALiBi: the extrapolation control)")
        ->capture_default_str()
        ->delimiter(',');
    cmd.add_option("--s", o_.s, "Hashes of the lsh variant, one training each")
        ->capture_default_str()
        ->delimiter(',');
    cmd.add_option("--seed", o_.seed, "First training seed")->capture_default_str();
    cmd.add_option("--seeds", o_.seeds, "Seeds per variant (seed, seed + 1, ...)")
        ->capture_default_str();
    add_model_options(cmd, o_);
    add_evaluation_options(cmd, o_);
    cmd.add_option("--finetune-steps", o_.finetune_steps,
                   "Fine-tune each base model (--finetune-from) this many steps with every "
                   "variant but nobias and sinusoidal, at every s (0: no fine-tune)")
        ->capture_default_str();
    cmd.add_option("--finetune-from", o_.finetune_from,
                   "Base models of the fine-tunes: exact (exact ALiBi), nobias (trained without "
                   "positional bias); the exact-ALiBi fine-tune of each is the reference")
        ->capture_default_str()
        ->delimiter(',');
    cmd.add_option("--draws", o_.draws,
                   "Hash draws of positional LSH: shared (one per layer and step, rescaled per "
                   "head) or per-head (each head its own independent draw)")
        ->capture_default_str();
    cmd.add_option("--margin", o_.margin,
                   "Equivalence margin in bits per byte (> 0): a paired difference is comparable "
                   "only when its whole 95% interval lies within +-margin, worse or better only "
                   "when wholly outside")
        ->capture_default_str();
    cmd.add_option("--keep-models", o_.keep_models,
                   "Keep every final model in this folder (STEM.pt state dict + STEM.json; "
                   "poslsh.lm.load_model reads them)");
    cmd.add_option("--python", o_.python, "Python interpreter with numpy and torch")
        ->capture_default_str();
  }

  void validate(CLI::App&, const SweepOptions& sweep) override {
    o_.sweep = sweep;
    lm_cli::validate(o_);
    require_writable("--out", sweep.out);
    prepare_lm_python(o_.python);
    if (!o_.keep_models.empty()) require_writable("--keep-models", keep_probe(o_.keep_models));
    corpus_ = corpus_note(o_);  // before anything is written: a missing corpus writes nothing
    corpus_ += fmt::format("# sigmas {} (expected blocks per context (n - 1)/sigma + 1: {})\n",
                           fmt::join(o_.head_sigmas(), ", "), expected_blocks(o_));
    checkpoints_ = beside_table(sweep.out, ".checkpoints");
    qkv_ = beside_table(sweep.out, "_qkv");
    if (!sweep.resume) fs::remove_all(checkpoints_);
  }

  std::vector<std::string> columns() const override { return lm_columns(); }
  std::vector<std::string> timing_columns() const override { return {"seconds", "step_cpu_seconds"}; }
  std::vector<Training> cells() const override { return trainings(o_); }
  // The exact models start first (a fine-tune waits for its base), then the
  // other trainings, then the fine-tunes.
  double cost(const Training& t) const override {
    if (t.phase == "baseline") return static_cast<double>(o_.steps);
    if (t.phase != "train") return static_cast<double>(o_.finetune_steps);
    const auto& bases = o_.finetune_from;
    const bool base = std::find(bases.begin(), bases.end(), t.variant) != bases.end();
    return static_cast<double>(o_.steps) * (t.variant == "exact" || base ? 2.0 : 1.0) + 1.0;
  }

  std::vector<CsvRow> rows(const Training& t) const override {
    // Made by the first cell, not up front: a run the sweep refuses (a bad
    // --shard, too little memory) leaves nothing behind.
    fs::create_directories(checkpoints_);
    const std::string spec = cell_spec(o_, t, checkpoints_, qkv_);
    return cell_rows(o_, t,
                     run_python(o_.python, "cell", spec, checkpoints_ / (t.file_stem() + ".rows")));
  }

  std::string label(const Training& t) const override { return t.label(); }
  std::string config_note() const override { return corpus_; }
  std::uint64_t seed() const override { return static_cast<std::uint64_t>(o_.seed); }
  // The checkpoints serve --resume only; the finished table does not need them.
  void finished() const override { fs::remove_all(checkpoints_); }

 private:
  LmOptions o_;
  std::string corpus_;  // the corpus' provenance line
  fs::path checkpoints_, qkv_;
};

Action add_lm_command(CLI::App& parent) {
  return swept_command(parent, "lm",
                       "Small ALiBi language models trained with positional-LSH attention "
                       "(PyTorch)",
                       std::make_shared<Lm>(), lm_summary_csv);
}

}  // namespace lm_cli

void prepare_lm_python(const std::string& python) {
  if (!on_path(python))
    throw UsageError(
        fmt::format("--python: '{}' is not an executable (accepted: a Python 3 "
                    "interpreter with numpy and torch, e.g. /usr/bin/python3)",
                    detail::printable(python)));
  lm_cli::put_package_on_path();
  lm_cli::pin_blas_threads();
  lm_cli::require_importable(python);
}

std::string run_lm_python(const std::string& python, const std::string& mode,
                          const std::string& arg, const std::string& result) {
  return lm_cli::run_python(python, mode, arg, result);
}

namespace {

const bool registered_lm = register_experiment({
    .name = "lm",
    .summary = "Small ALiBi language models trained with positional-LSH attention (PyTorch)",
    .add_command = lm_cli::add_lm_command,
    .add_bench = {},
    .checker = {.required_columns = lm_columns(),
                .run = [](const CsvTable& t, double alpha) { return check_lm_table(t, alpha); }},
    .summarize = lm_summary_csv,
    .figures = {{.script = "lm_loss_vs_s", .title = "Language models: validation loss against s"},
                {.script = "lm_frontier",
                 .title = "Language models: loss against keys per query (equal cost)"},
                {.script = "lm_learning_curves", .title = "Language models: learning curves"},
                {.script = "lm_finetune",
                 .title = "Language models: fine-tuning exact-ALiBi models"},
                {.script = "lm_loss_vs_length", .title = "Language models: length extrapolation"},
                {.script = "lm_swapin_error_vs_s",
                 .title = "Language models: swap-in output error against s on trained Q, K, V"}},
    .report_section = add_lm_report_section,
});

}  // namespace

}  // namespace poslsh
