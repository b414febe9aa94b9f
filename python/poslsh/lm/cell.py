"""One cell of `poslsh lm`: one training (or fine-tune) of one (variant, s, seed), evaluated;
or (phase 'baseline') the byte n-gram baselines of poslsh.lm.ngram.

The settings and their checks are config.py's (LmConfig), the cells
experiment.py's, which builds a CellSpec per cell; the sweep runner (`poslsh
lm`) runs one cell per training, side by side on the cores, and writes the
rows into lm.csv in cell order. This module trains (through
poslsh.lm.train, the one training loop, with the variants of
poslsh.lm.attention) and evaluates; poslsh.lm.rows turns the results into rows:
(eval, eval_s, step, pos_lo, pos_hi, trial, layer, head, sigma, context,
metric, value, stderr, count), None a cell that does not apply.

phase 'train' (from scratch) and 'finetune' (from the model of variant `base`,
exact ALiBi or nobias, of the same seed, continued for finetune_steps with the
variant, on the same batches for every variant; variant exact is the control
of either base):
- train_bpb: mean training loss over the last tenth of the steps;
- curve_train_bpb / curve_val_bpb at `step` (steps done in the phase): the
  learning curve, every curve_every steps, validation on curve_batches batches;
- val_bpb / test_bpb: bits per byte on the validation / test windows at
  context m * n for every m in eval_lengths (test at n only), eval 'self' (the
  variant's own attention; lsh with fresh hashes, one draw per batch) and, for
  lsh, eval 'exact' (ALiBi swapped in, same weights); at m > 1 also per
  position bucket [pos_lo, pos_hi) = [0, n), [n, 2n), [2n, 4n), ...;
- finetune: eval 'swapin', val_bpb at n before the first fine-tune step;
- val_bpb_ctx<w> for every w in context_probe: val_bpb at n with every query's
  attention cut to its last w positions (itself included; evaluation only,
  poslsh.lm.attention.CutBias), and val_bpb_beyond<w>, that minus val_bpb at n
  batch by batch: the bits the model gains from bytes more than w back;
- keys_per_query per head (and its mean over heads, head empty) at n, lsh's
  measured on its own training draws, fixed's and window's matched to them;
  expected_blocks per head, (n - 1) / sigma + 1;
- exact models (train phase) only, the paper's swap-in: eval 'lsh' at eval_s
  hashes, val_bpb at n, and output_error per (trial, layer, head):
  ||T* - T~||_F / ||T*||_F on the model's own Q, K, V of the first validation
  batch; those Q, K, V are exported as .npy for `poslsh attention --qkv`.

phase 'baseline' trains nothing: the interpolated Witten-Bell byte n-grams of
orders 0 .. ngram_order fitted on the training split, val_bpb at every
evaluation context and test_bpb at n on the same windows as the models, each
row led by its variant, ngram-<k> (rows.baseline_rows).
"""
from __future__ import annotations

import fcntl
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import corpus as corpus_module
from .attention import MATCHED, POSITION_EMBEDDED, Bias
from .evaluate import EVAL_SEED_OFFSET, batch_bits
from .model import ModelShape
from .rows import Row, baseline_rows, loss_row, model_rows
from .saved import save_model
from .train import TrainConfig, Trained, deterministic, train


@dataclass
class CellSpec:
    """One cell's settings, built from a checked LmConfig (experiment.cell_spec)."""
    corpus: str
    variant: str
    s: int
    seed: int
    phase: str  # "train", "finetune" or "baseline" (the n-gram baselines)
    base: str  # finetune: the variant of the base model ("exact" or "nobias")
    draws: str  # lsh hashes: "shared" by a layer's heads or "per-head" (attention.head_trial)
    layers: int
    heads: int
    width: int
    sigmas: list[float]
    context: int
    batch: int
    steps: int
    lr: float
    warmup: int
    weight_decay: float
    checkpoint_every: int
    finetune_steps: int
    curve_every: int
    curve_batches: int
    eval_lengths: list[int]
    eval_batches: int
    eval_batch: int
    swap_s: list[int]
    swap_trials: int
    context_probe: list[int]  # the context-use probe's cuts w (empty: none)
    ngram_order: int  # the baseline cell's highest n-gram order
    checkpoint: str  # "" : no checkpoint
    base_checkpoint: str  # the base model of this seed (finetune; "" : none)
    qkv_dir: str  # "" : no export
    keep_dir: str  # "" : keep no model
    file_stem: str
    threads: int
    progress: bool  # a line on stderr every tenth of the steps

    def shape(self, variant: str) -> ModelShape:
        """The model of `variant`: sinusoidal's adds absolute positions."""
        positions = "sinusoidal" if variant in POSITION_EMBEDDED else "none"
        return ModelShape(self.layers, self.heads, self.width, positions)

    def train_config(self, variant: str) -> TrainConfig:
        return TrainConfig(self.shape(variant), self.context, self.batch,
                           self.steps, self.lr, self.warmup, self.weight_decay, self.checkpoint_every,
                           self.curve_every)

    def finetune_config(self) -> TrainConfig:
        """Constant learning rate where the base's schedule ended (lr / 10)."""
        return TrainConfig(self.shape(self.base), self.context, self.batch, self.finetune_steps,
                           self.lr / 10, 0, self.weight_decay, self.checkpoint_every, self.curve_every, first_step=self.steps)


def make_bias(spec: CellSpec, variant: str, seed: int, first_draw: int, draws: int) -> Bias:
    return Bias(variant, spec.sigmas, spec.layers, s=spec.s if variant in MATCHED else 0, seed=seed,
                train_context=spec.context, cost_seed=spec.seed, cost_draws=(first_draw, draws), draws=spec.draws)


def validation_curve(spec: CellSpec, eval_bias: Bias, data):
    if spec.curve_every == 0:
        return None
    return lambda model: float(batch_bits(model, eval_bias, data, spec.context, spec.curve_batches,
                                          spec.eval_batch).mean())


@contextmanager
def locked(path: Path):
    """An exclusive lock beside `path`: one process at a time trains (or reads) one base model."""
    with open(path.with_suffix(".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def pretrain(spec: CellSpec, text, variant: str, checkpoint: Path | None, label: str) -> Trained:
    """The from-scratch training of `variant` at this seed: what the exact cell runs and
    what a fine-tune starts from (the same checkpoint, under one lock)."""
    bias = make_bias(spec, variant, spec.seed, 0, spec.steps)
    curve = validation_curve(spec, eval_bias_of(spec, variant, bias), text.validation)
    if checkpoint is None:
        return train(text.train, bias, spec.train_config(variant), spec.seed, None, label, curve)
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    with locked(checkpoint):
        return train(text.train, bias, spec.train_config(variant), spec.seed, checkpoint, label, curve)


def eval_bias_of(spec: CellSpec, variant: str, bias: Bias) -> Bias:
    """lsh is evaluated with hashes of a seed training never used; the others as trained."""
    if variant != "lsh":
        return bias
    return Bias("lsh", spec.sigmas, spec.layers, s=spec.s, seed=EVAL_SEED_OFFSET + spec.seed, draws=spec.draws)


def finetune(spec: CellSpec, text, base: Trained, label: str) -> tuple[Trained, Bias, Bias, list[Row]]:
    """The fine-tune of the base model with spec.variant; also the loss before it."""
    bias = make_bias(spec, spec.variant, spec.seed, spec.steps, spec.finetune_steps)
    eval_bias = eval_bias_of(spec, spec.variant, bias)
    before = loss_row("swapin", None, spec.context, "val_bpb",
                      batch_bits(base.model, eval_bias, text.validation, spec.context, spec.eval_batches,
                                 spec.eval_batch))
    checkpoint = Path(spec.checkpoint) if spec.checkpoint else None
    trained = train(text.train, bias, spec.finetune_config(), spec.seed, checkpoint, label,
                    validation_curve(spec, eval_bias, text.validation),
                    start={"model": base.model.state_dict(), "optimizer": base.optimizer})
    return trained, bias, eval_bias, [before]


def run(spec: CellSpec) -> tuple[list[Row], float, float | None]:
    """The cell's rows, its training time in seconds and its seconds per training step."""
    deterministic(spec.threads)
    text = corpus_module.load(spec.corpus)
    t0 = time.monotonic()
    if spec.phase == "baseline":
        rows = baseline_rows(spec, text)
        return rows, time.monotonic() - t0, None
    label = spec.file_stem if spec.progress else ""
    if spec.phase == "train":
        checkpoint = Path(spec.checkpoint) if spec.checkpoint else None
        trained = pretrain(spec, text, spec.variant, checkpoint, label)
        bias = make_bias(spec, spec.variant, spec.seed, 0, spec.steps)
        eval_bias, rows, draws = eval_bias_of(spec, spec.variant, bias), [], (0, spec.steps)
    else:
        base_path = Path(spec.base_checkpoint) if spec.base_checkpoint else None
        base = pretrain(spec, text, spec.base, base_path, f"{label} (its {spec.base} base)" if label else "")
        trained, bias, eval_bias, rows = finetune(spec, text, base, label)
        draws = (spec.steps, spec.finetune_steps)
    seconds = time.monotonic() - t0
    model = trained.model.eval()
    rows += model_rows(model, spec, trained, bias, eval_bias, text, draws)
    if spec.keep_dir:
        save_model(Path(spec.keep_dir) / spec.file_stem, model, bias,
                   {"phase": spec.phase, "base": spec.base if spec.phase == "finetune" else "",
                    "seed": spec.seed, "steps": spec.steps,
                    "finetune_steps": spec.finetune_steps if spec.phase == "finetune" else 0,
                    "context": spec.context, "corpus": spec.corpus})
    return rows, seconds, trained.seconds_per_step()
