"""The rows of a cell (python/poslsh/lm/cell.py): the one place where a trained
model's measurements become table rows.

A row is (eval, eval_s, step, pos_lo, pos_hi, trial, layer, head, sigma,
context, metric, value, stderr, count); None is a cell that does not apply.
experiment.py puts the cell's own columns (variant, train_s, seed, phase,
steps) before them and the margin and timings after.
Which rows a cell has is listed in cell.py's docstring.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from .attention import Bias, CutBias, lsh_keys_per_query
from .evaluate import (EVAL_SEED_OFFSET, attention_inputs, batch_bits, bucket_bits, evaluation_starts,
                       position_bits, position_buckets, swap_in_errors)
from .ngram import WittenBell, window_bits
from .train import Trained, windows

if TYPE_CHECKING:
    from .cell import CellSpec


Row = tuple


def row(eval_: str, eval_s, context: int, metric: str, value: float, stderr=None, count=1, *,
        step=None, pos=(None, None), trial=None, layer=None, head=None, sigma=None) -> Row:
    return (eval_, eval_s, step, pos[0], pos[1], trial, layer, head, sigma, context, metric,
            float(value), stderr, count)


def loss_row(eval_: str, eval_s, context: int, metric: str, bits: np.ndarray, pos=(None, None)) -> Row:
    stderr = float(bits.std(ddof=1) / np.sqrt(len(bits))) if len(bits) > 1 else None
    return row(eval_, eval_s, context, metric, bits.mean(), stderr, len(bits), pos=pos)


def export_qkv(qkv: list[tuple], directory: Path) -> None:
    """Layer l's Q, K, V of the first window, [heads, n, d] float32, as
    <directory>/layer<l>/{q,k,v}.npy (`poslsh attention --qkv <that folder>`)."""
    for layer, tensors in enumerate(qkv):
        d = directory / f"layer{layer}"
        d.mkdir(parents=True, exist_ok=True)
        for name, t in zip("qkv", tensors):
            np.save(d / f"{name}.npy", t[0].to(torch.float32).numpy())


def context_rows(model, spec: CellSpec, bias: Bias, data, eval_: str, metric: str, m: int) -> list[Row]:
    """The loss at context m * n, and per position bucket when m > 1."""
    n = m * spec.context
    bits = position_bits(model, bias, data, n, spec.eval_batches, spec.eval_batch)
    rows = [loss_row(eval_, None, n, metric, bucket_bits(bits, 0, n))]
    if m > 1:
        rows += [loss_row(eval_, None, n, metric, bucket_bits(bits, lo, hi), pos=(lo, hi))
                 for lo, hi in position_buckets(n, spec.context)]
    return rows


def held_out_rows(model, spec: CellSpec, eval_bias: Bias, data, metric: str, lengths: list[int],
                  with_exact: bool) -> list[Row]:
    rows = []
    for m in lengths:
        rows += context_rows(model, spec, eval_bias, data, "self", metric, m)
        if with_exact:
            rows += context_rows(model, spec, Bias("exact", spec.sigmas, spec.layers), data, "exact",
                                 metric, m)
    return rows


def swap_in_rows(model, spec: CellSpec, data) -> list[Row]:
    layers, seed, sigmas = spec.layers, EVAL_SEED_OFFSET + spec.seed, spec.sigmas
    rows = []
    for s in spec.swap_s:
        lsh = Bias("lsh", sigmas, layers, s=s, seed=seed, draws=spec.draws)
        rows.append(loss_row("lsh", s, spec.context, "val_bpb",
                             batch_bits(model, lsh, data, spec.context, spec.eval_batches, spec.eval_batch)))
    x, _ = windows(data, evaluation_starts(data, spec.context, spec.eval_batches, spec.eval_batch)[0],
                   spec.context)
    qkv = attention_inputs(model, Bias("exact", sigmas, layers), x)
    if spec.qkv_dir:
        export_qkv(qkv, Path(spec.qkv_dir))
    for s, trial, layer, head, error in swap_in_errors(qkv, sigmas, spec.swap_s, spec.swap_trials, seed,
                                                       spec.draws):
        rows.append(row("lsh", s, spec.context, "output_error", error, trial=trial, layer=layer,
                        head=head, sigma=sigmas[head]))
    return rows


def cost_rows(spec: CellSpec, bias: Bias, first_draw: int, draws: int) -> list[Row]:
    """Keys per query per head and their mean; the heads' expected blocks per context."""
    n = spec.context
    lsh_keys = bias.lsh_keys
    if spec.variant == "lsh":
        lsh_keys = lsh_keys_of(spec, first_draw, draws)
    keys = bias.keys_per_query(n, lsh_keys)
    rows = [row("self", None, n, "keys_per_query", k, head=h, sigma=sg)
            for h, (k, sg) in enumerate(zip(keys, spec.sigmas))]
    rows.append(row("self", None, n, "keys_per_query", float(np.mean(keys))))
    rows += [row("self", None, n, "expected_blocks", (n - 1) / sg + 1, head=h, sigma=sg)
             for h, sg in enumerate(spec.sigmas)]
    return rows


def lsh_keys_of(spec: CellSpec, first_draw: int, draws: int) -> list[float]:
    return lsh_keys_per_query(spec.seed, spec.s, spec.sigmas, spec.context, spec.layers, first_draw, draws,
                              spec.draws)


def curve_rows(spec: CellSpec, trained: Trained) -> list[Row]:
    rows = []
    for step, train_bpb, val_bpb in trained.curve:
        if train_bpb is not None:
            rows.append(row("self", None, spec.context, "curve_train_bpb", train_bpb, step=step))
        rows.append(row("self", None, spec.context, "curve_val_bpb", val_bpb,
                        count=spec.curve_batches, step=step))
    return rows


def tail_row(spec: CellSpec, losses: list[float]) -> Row:
    tail = np.array(losses[-max(1, len(losses) // 10):])
    return row("self", None, spec.context, "train_bpb", tail.mean(), count=len(tail))


def probe_rows(model, spec: CellSpec, eval_bias: Bias, data) -> list[Row]:
    """The context-use probe at n: val_bpb_ctx<w> with attention cut to the last w
    positions, and val_bpb_beyond<w>, its excess over the full attention's loss, batch
    by batch (the same windows and draws)."""
    if not spec.context_probe:
        return []
    n, batches, batch = spec.context, spec.eval_batches, spec.eval_batch
    full = batch_bits(model, eval_bias, data, n, batches, batch)
    rows = []
    for w in spec.context_probe:
        cut = batch_bits(model, CutBias(eval_bias, w), data, n, batches, batch)
        rows += [loss_row("self", None, n, f"val_bpb_ctx{w}", cut),
                 loss_row("self", None, n, f"val_bpb_beyond{w}", cut - full)]
    return rows


def baseline_rows(spec: CellSpec, text) -> list[Row]:
    """The n-gram baselines (poslsh.lm.ngram) of orders 0 .. ngram_order, each row led by
    its variant ngram-<k>: val_bpb at every evaluation context, test_bpb at n, on the
    models' windows (a batch: the mean over its windows, as for the models)."""
    model = WittenBell(text.train, spec.ngram_order)
    rows = []
    for data, metric, lengths in ((text.validation, "val_bpb", spec.eval_lengths), (text.test, "test_bpb", [1])):
        for m in lengths:
            n = m * spec.context
            bits = window_bits(model, data, evaluation_starts(data, n, spec.eval_batches, spec.eval_batch), n)
            rows += [(f"ngram-{k}",) + loss_row("self", None, n, metric, bits[k].mean(axis=(1, 2)))
                     for k in range(spec.ngram_order + 1)]
    return rows


def model_rows(model, spec: CellSpec, trained: Trained, bias: Bias, eval_bias: Bias, text,
               draws: tuple[int, int]) -> list[Row]:
    """Every row of a trained (or fine-tuned) model but the fine-tune's loss before its
    first step: training loss, learning curve, held-out losses, cost, and for exact
    models of the train phase the swap-in. `draws`: (first, count) of its training."""
    rows = [tail_row(spec, trained.losses)] + curve_rows(spec, trained)
    rows += held_out_rows(model, spec, eval_bias, text.validation, "val_bpb", spec.eval_lengths,
                          spec.variant == "lsh")
    rows += held_out_rows(model, spec, eval_bias, text.test, "test_bpb", [1], False)
    rows += probe_rows(model, spec, eval_bias, text.validation)
    rows += cost_rows(spec, bias, *draws)
    if spec.variant == "exact" and spec.phase == "train":
        rows += swap_in_rows(model, spec, text.validation)
    return rows
