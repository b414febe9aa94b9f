"""Evaluation: bits per byte on held-out text (whole windows and position
buckets), and the swap-in output errors.

Held-out windows are evenly spaced over the split (the same windows for every
model and variant); batch b of an evaluation is draw b of the bias, so a
random variant (lsh) is averaged over fresh hashes, one draw per batch, drawn
with a seed of its own (EVAL_SEED_OFFSET + seed) that training never used.
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch.nn import functional as F

from .attention import Bias, alibi_bias, lsh_bias
from .errors import UsageError
from .model import VOCAB, ByteTransformer, attend
from .train import windows

EVAL_SEED_OFFSET = 1 << 32


def evaluation_starts(data: np.ndarray, context: int, batches: int, batch: int) -> np.ndarray:
    count = batches * batch
    if len(data) < context + 1 + count:
        raise UsageError(f"lm: {len(data)} held-out bytes are too few for {count} windows of "
                         f"{context + 1}")
    return np.linspace(0, len(data) - context - 1, count).astype(np.int64).reshape(batches, batch)


def position_buckets(context: int, train_context: int) -> list[tuple[int, int]]:
    """[0, n), [n, 2n), [2n, 4n), ... cut at the evaluation context (n: the training context)."""
    bounds, b = [0], train_context
    while b < context:
        bounds.append(b)
        b *= 2
    bounds.append(context)
    return list(zip(bounds[:-1], bounds[1:]))


@torch.no_grad()
def position_bits(model: ByteTransformer, bias: Bias, data: np.ndarray, context: int, batches: int,
                  batch: int) -> np.ndarray:
    """Bits of every predicted byte, [batches, batch, context] (float64): batch b of the
    evaluation windows under draw b of the bias."""
    out = []
    for b, starts in enumerate(evaluation_starts(data, context, batches, batch)):
        x, y = windows(data, starts, context)
        biases = [bias(context, layer, b) for layer in range(model.shape.layers)]
        logits = model(x, biases)
        nats = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1), reduction="none")
        out.append((nats.double() / math.log(2)).reshape(x.shape).numpy())
    return np.stack(out)


def bucket_bits(bits: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Per batch, the mean bits per byte of the positions lo .. hi - 1."""
    return bits[:, :, lo:hi].mean(axis=(1, 2))


@torch.no_grad()
def batch_bits(model: ByteTransformer, bias: Bias, data: np.ndarray, context: int, batches: int,
               batch: int) -> np.ndarray:
    """Bits per byte of each evaluation batch (mean over its windows' positions)."""
    return bucket_bits(position_bits(model, bias, data, context, batches, batch), 0, context)


@torch.no_grad()
def attention_inputs(model: ByteTransformer, bias: Bias, tokens: torch.Tensor) -> list[tuple]:
    """Each layer's (Q, K, V), [batch, heads, n, d], in a forward pass under `bias`."""
    captured = []
    hooks = [block.attn.register_forward_hook(
        lambda module, args, _out: captured.append(module.qkv_heads(args[0])))
        for block in model.blocks]
    try:
        model(tokens, [bias(tokens.shape[1], layer, 0) for layer in range(model.shape.layers)])
    finally:
        for h in hooks:
            h.remove()
    return captured


def relative_errors(exact: torch.Tensor, approx: torch.Tensor) -> np.ndarray:
    """Per head ||T* - T~||_F / ||T*||_F over the batch ([batch, heads, n, d])."""
    diff = (exact - approx).pow(2).sum(dim=(0, 2, 3)).sqrt()
    return (diff / exact.pow(2).sum(dim=(0, 2, 3)).sqrt()).numpy()


@torch.no_grad()
def swap_in_errors(qkv: list[tuple], sigmas: list[float], s_values: list[int], trials: int,
                   seed: int, hash_draws: str = "shared") -> list[tuple[int, int, int, int, float]]:
    """(s, trial, layer, head, error) of positional-LSH attention at s hashes against
    exact ALiBi, on the model's own Q, K, V (float64). Hash k of a trial is the
    same for every s, so each trial is one curve of error against s."""
    rows = []
    n = qkv[0][0].shape[2]
    for layer, (q, k, v) in enumerate(qkv):
        q, k, v = q.double(), k.double(), v.double()
        exact = attend(q, k, v, alibi_bias(sigmas, n).double())
        for trial in range(trials):
            for s in s_values:
                bias = lsh_bias(seed, trial * len(qkv) + layer, s, sigmas, n, torch.float64, hash_draws)
                approx = attend(q, k, v, bias)
                rows += [(s, trial, layer, h, float(e))
                         for h, e in enumerate(relative_errors(exact, approx))]
    return rows
