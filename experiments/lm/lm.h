// `poslsh lm`: does positional-LSH attention keep a language model's quality?
//
// Small byte-level decoder-only transformers are trained from scratch on real
// text (the King James Bible of Debian's bible-kjv), one training per cell:
// (variant, s, seed) with variant exact ALiBi, lsh (positional LSH at s
// hashes, fresh every step), nobias, fixed blocks, an equal-cost window or
// sinusoidal (absolute positions, no ALiBi: claim 4's control); and one
// baseline cell, the byte n-grams (ngram-0 .. ngram-K, Witten-Bell) on the
// same held-out windows.
// The experiment lives in Python (python/poslsh/lm/): its settings, defaults
// and checks (config.py), its cells and rows (experiment.py); the runner runs
// it as an experiment in another process (runner/external_experiment.h), a
// cell being `python3 -m poslsh.lm cell ...` (PyTorch, one thread; the hashes
// are poslsh's own through the Python module), so the run keeps its resume,
// shards, progress and provenance; trainings run side by side, one per
// --threads, and each resumes from its checkpoint. What stays here is what
// reads a finished table: its columns, summary, checks and report.
//
// One row per measurement (python/poslsh/lm/cell.py says which): loss in bits
// per byte on validation / test windows at contexts n, 2n, 4n, under the
// variant's own attention or with exact ALiBi (eval exact) or positional LSH
// at eval_s hashes (eval lsh, exact models only: the swap-in) swapped in; and
// the swap-in's output errors ||T* - T~||_F / ||T*||_F per (trial, layer, head);
// the context-use probe (val_bpb_ctx<w>, val_bpb_beyond<w>: attention cut to
// each query's last w positions at evaluation).
#pragma once

#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "runner/csv_table.h"

namespace poslsh {

const std::vector<std::string>& lm_columns();

// The Python side of `poslsh lm` and `poslsh bench lm`. prepare: checks
// that `python` is an executable, puts the package beside this binary first
// on PYTHONPATH and pins the children's BLAS to one thread; require_lm_torch:
// that it imports poslsh.lm and torch (a UsageError naming --python and what
// to install otherwise). run: `python -m poslsh.lm MODE ARG RESULT`, RESULT's
// text (InputError with its one line on exit 2, CellInterrupted on 130/143).
// options_table: the options of `poslsh lm` (COMMAND "lm") or `poslsh bench
// lm` ("bench"), as python/poslsh/lm/config.py declares them.
void prepare_lm_python(const std::string& python);
void require_lm_torch(const std::string& python);
std::string run_lm_python(const std::string& python, const std::string& mode,
                          const std::string& arg);
std::string lm_options_table(const std::string& command);
const std::vector<std::string>& lm_summary_columns();

// The verdict on a paired difference d = variant minus reference (bits per
// byte; lower is better) from its 95% interval [low, high] and the run's
// equivalence margin m > 0 (`--margin`): "comparable" when the whole interval
// lies in [-m, m] (touching a bound from inside counts); "worse" when it lies
// wholly above m (low > m), "better" when wholly below -m (high < -m);
// "undecided" otherwise: straddling a bound, or touching one from outside
// (low == m), or a bound that is not a number.
std::string lm_margin_verdict(double low, double high, double margin);

// One summary row per (variant, train_s, phase, eval, eval_s, step, pos_lo,
// pos_hi, head, context, metric): the mean over seeds, a 95% Student-t
// interval over the seeds' values and the validation batches' standard error
// of that mean; output errors are averaged over trials, layers and heads
// first. Loss rows also carry the table's margin and, paired by seed, the
// difference to exact ALiBi (vs_exact_*: the same phase's exact model;
// fine-tunes: the exact-ALiBi fine-tune from the same base) and, for lsh, to
// fixed-block (vs_fixed_block_*: the paper's claim 3) and to nobias
// (vs_nobias_*: claim 2), and on the positions beyond n its own loss at n
// net of exact ALiBi's same difference (vs_n_*: claim 4's yardstick), each
// with its lm_margin_verdict (one seed: undecided). A seedless group (the
// n-gram baselines, phase "baseline") pairs with every seed of exact ALiBi.
std::string lm_summary_csv(const CsvTable& table);

// Checks of an lm table (info, WARN or n/a: nothing here can FAIL):
//  - swapin-rate[seed,layer,head]: per trial, the slope of log output_error
//    against log s and the sign test's numbers (rate_interval.h), descriptive:
//    no proven null puts a sound estimator's median slope in the -1/2 band on
//    a trained head (docs/MATH.md §9);
//  - lm[...] info lines: each variant's validation loss against exact ALiBi
//    (per phase: from scratch, fine-tuned from each base), with its verdict
//    at the margin;
//  - lm-vs-fixed-block[...]: positional LSH minus fixed-block per s and phase
//    (claim 3), with its verdict; lm-vs-nobias[...]: minus nobias (claim 2);
//  - lm-extrapolation[...]: positional LSH minus exact ALiBi per position
//    bucket beyond the training context n at 2n, 4n, ... (claim 4);
//  - lm-gap-settled[...]: per paired comparison with a learning curve, how far
//    the gap moved over the last 20% of training: info within half the
//    margin, WARN beyond it (the verdict describes a point in training), n/a
//    without a curve point before the last 20%.
std::vector<CheckOutcome> check_lm_table(const CsvTable& table, double alpha);

// What the summary shows, in plain sentences, for the report.
std::vector<std::string> lm_findings(const CsvTable& summary);

// The report's table: one row per (model, evaluation), validation loss at
// each evaluation context as "mean [low, high]" (95% over seeds).
struct LmLossTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
LmLossTable lm_loss_table(const CsvTable& summary);

// The fine-tune table: per base and variant, validation loss at n before
// fine-tuning (the swap-in value) and after, and both against the exact-ALiBi
// control (the base trained as many more steps with exact ALiBi), with the
// verdict at the margin. Empty without fine-tunes.
LmLossTable lm_finetune_table(const CsvTable& summary);

// The paper's claims as verdicts at the run's margin, one row per paired
// comparison: every variant minus exact ALiBi at n (claim 1 for lsh, the
// others as baselines), lsh minus nobias (claim 2), every fine-tune minus its
// control and lsh minus fixed-block per s (claim 3), lsh minus exact ALiBi
// per position bucket beyond n (claim 4).
LmLossTable lm_verdict_table(const CsvTable& summary);

// The report's "Language models" section from an lm table's path (its
// summary beside it): the findings, the loss table, the fine-tune table.
void add_lm_report_section(ReportDocument& doc, const std::string& table_csv);

}  // namespace poslsh
