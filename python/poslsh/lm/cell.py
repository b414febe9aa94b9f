"""One cell of `poslsh lm`: train one (variant, s, seed) model, evaluate it.

The C++ sweep runner (`poslsh lm`) owns the table: it runs one cell per
training, side by side on the cores, and writes the rows this module returns
into lm.csv in cell order. A row is (eval, eval_s, trial, layer, head, sigma,
context, metric, value, stderr, count); None is a cell that does not apply
(sigma: the head's ALiBi scale, on output_error rows).

- metric train_bpb: mean training loss over the last tenth of the steps;
- metric val_bpb / test_bpb: bits per byte on the validation / test windows
  at context m * n for every m in eval_lengths (test at n only), eval 'self'
  (the variant's own attention; lsh with fresh hashes, one draw per batch) and,
  for lsh, eval 'exact' (ALiBi swapped in, same weights);
- exact models only, the paper's swap-in: eval 'lsh' at eval_s hashes,
  val_bpb at n, and metric output_error per (trial, layer, head):
  ||T* - T~||_F / ||T*||_F on the model's own Q, K, V of the first validation
  batch; those Q, K, V are exported as .npy for `poslsh attention --qkv`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

import poslsh

from . import corpus as corpus_module
from .attention import Bias, describe
from .evaluate import EVAL_SEED_OFFSET, attention_inputs, batch_bits, evaluation_starts, swap_in_errors
from .model import ModelShape
from .train import TrainConfig, deterministic, train, windows


@dataclass
class CellSpec:
    corpus: str = corpus_module.KJV
    variant: str = "exact"
    s: int = 0
    seed: int = 0
    layers: int = 4
    heads: int = 4
    width: int = 128
    context: int = 128
    batch: int = 16
    steps: int = 400
    lr: float = 3e-3
    warmup: int = 40
    weight_decay: float = 0.1
    checkpoint_every: int = 50
    window_s: int = 4
    eval_lengths: list[int] = field(default_factory=lambda: [1, 2, 4])
    eval_batches: int = 16
    eval_batch: int = 8
    swap_s: list[int] = field(default_factory=lambda: [1, 2, 4, 8, 16, 32, 64])
    swap_trials: int = 8
    checkpoint: str = ""  # "" : no checkpoint
    qkv_dir: str = ""  # "" : no export
    threads: int = 1
    progress: bool = True  # a line on stderr every tenth of the steps

    def train_config(self) -> TrainConfig:
        return TrainConfig(ModelShape(self.layers, self.heads, self.width), self.context, self.batch,
                           self.steps, self.lr, self.warmup, self.weight_decay, self.checkpoint_every)


Row = tuple


def loss_row(eval_: str, eval_s, context: int, metric: str, bits: np.ndarray) -> Row:
    stderr = float(bits.std(ddof=1) / np.sqrt(len(bits))) if len(bits) > 1 else None
    return (eval_, eval_s, None, None, None, None, context, metric, float(bits.mean()), stderr,
            len(bits))


def export_qkv(qkv: list[tuple], directory: Path) -> None:
    """Layer l's Q, K, V of the first window, [heads, n, d] float32, as
    <directory>/layer<l>/{q,k,v}.npy (`poslsh attention --qkv <that folder>`)."""
    for layer, tensors in enumerate(qkv):
        d = directory / f"layer{layer}"
        d.mkdir(parents=True, exist_ok=True)
        for name, t in zip("qkv", tensors):
            np.save(d / f"{name}.npy", t[0].to(torch.float32).numpy())


def held_out_rows(model, spec: CellSpec, eval_bias: Bias, data, name: str, metric: str,
                  lengths: list[int]) -> list[Row]:
    cfg = spec.train_config()
    rows = []
    for m in lengths:
        n = m * spec.context
        rows.append(loss_row("self", None, n, metric,
                             batch_bits(model, eval_bias, data, n, spec.eval_batches, spec.eval_batch)))
        if spec.variant == "lsh" and name == "validation":
            exact = Bias("exact", eval_bias.sigmas, cfg.shape.layers)
            rows.append(loss_row("exact", None, n, metric,
                                 batch_bits(model, exact, data, n, spec.eval_batches, spec.eval_batch)))
    return rows


def swap_in_rows(model, spec: CellSpec, sigmas: list[float], data) -> list[Row]:
    layers, seed = spec.layers, EVAL_SEED_OFFSET + spec.seed
    rows = []
    for s in spec.swap_s:
        lsh = Bias("lsh", sigmas, layers, s=s, seed=seed)
        rows.append(loss_row("lsh", s, spec.context, "val_bpb",
                             batch_bits(model, lsh, data, spec.context, spec.eval_batches, spec.eval_batch)))
    x, _ = windows(data, evaluation_starts(data, spec.context, spec.eval_batches, spec.eval_batch)[0],
                   spec.context)
    qkv = attention_inputs(model, Bias("exact", sigmas, layers), x)
    if spec.qkv_dir:
        export_qkv(qkv, Path(spec.qkv_dir))
    for s, trial, layer, head, error in swap_in_errors(qkv, sigmas, spec.swap_s, spec.swap_trials, seed):
        rows.append(("lsh", s, trial, layer, head, sigmas[head], spec.context, "output_error", error,
                     None, 1))
    return rows


def run(spec: CellSpec) -> tuple[list[Row], float]:
    """The cell's rows and its training time in seconds."""
    deterministic(spec.threads)
    cfg = spec.train_config()
    text = corpus_module.load(spec.corpus)
    sigmas = poslsh.alibi_sigmas(spec.heads)
    bias = Bias(spec.variant, sigmas, spec.layers, s=spec.s, seed=spec.seed, window_s=spec.window_s,
                train_context=spec.context)
    label = f"{describe(bias)} seed {spec.seed}"
    t0 = time.monotonic()
    model, losses = train(text.train, bias, cfg, spec.seed,
                          Path(spec.checkpoint) if spec.checkpoint else None,
                          label if spec.progress else "")
    seconds = time.monotonic() - t0
    model.eval()
    tail = np.array(losses[-max(1, len(losses) // 10):])
    rows = [("self", None, None, None, None, None, spec.context, "train_bpb", float(tail.mean()),
             None, len(tail))]
    eval_bias = Bias(spec.variant, sigmas, spec.layers, s=spec.s, seed=EVAL_SEED_OFFSET + spec.seed,
                     window_s=spec.window_s, train_context=spec.context)
    rows += held_out_rows(model, spec, eval_bias, text.validation, "validation", "val_bpb",
                          spec.eval_lengths)
    rows += held_out_rows(model, spec, eval_bias, text.test, "test", "test_bpb", [1])
    if spec.variant == "exact":
        rows += swap_in_rows(model, spec, sigmas, text.validation)
    return rows, seconds
