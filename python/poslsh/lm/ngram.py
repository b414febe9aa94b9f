"""Byte n-gram baselines: interpolated Witten-Bell models of orders 0..K, what a
language model of the same bytes must beat to say anything about context.

Order k predicts a byte from the k bytes before it. Witten-Bell smoothing
interpolates each order with the one below it, down to a uniform over the 256
bytes:

    P_-1(w)     = 1 / 256
    P_k(w | h)  = (c(h w) + T(h) P_k-1(w | h')) / (c(h) + T(h))   when c(h) > 0,
                = P_k-1(w | h')                                   when c(h) = 0,

h the k bytes before w, h' its last k - 1, c(h w) the count of the (k + 1)-gram
in the training bytes, c(h) = sum over w of c(h w) (how often h is followed by
a byte), T(h) the number of distinct bytes that follow h. Order 0's context is
empty: P_0(w) = (c(w) + T / 256) / (N + T). Every P_k sums to 1 over the bytes.

The models are fitted on the training split and scored on the very bytes the
language models are scored on (poslsh.lm.evaluate.evaluation_starts: windows
of `context` bytes, target byte t of a window predicted from its bytes 0..t),
with the same window: the n-gram sees only the bytes of the window before the
target (order min(k, t + 1) at its position t), as the transformer does.

Counting is numpy only (each (k + 1)-gram coded as an integer, sorted once),
deterministic: a fit of orders 0..5 on the King James Bible's 3.7 MB training
bytes takes a few seconds on one core.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import UsageError

VOCAB = 256
MAX_ORDER = 6  # a 7-gram's code fits in 56 bits


def gram_codes(data: np.ndarray, k: int) -> np.ndarray:
    """The code sum_i data[t - k + i] 256^(k - i) of the (k + 1)-gram ending at every t >= k
    (its last byte in the lowest 8 bits, its context above them)."""
    data = np.asarray(data, dtype=np.int64)
    code = np.zeros(len(data) - k, dtype=np.int64)
    for i in range(k + 1):
        code = code * VOCAB + data[i:len(data) - k + i]
    return code


@dataclass(frozen=True)
class OrderCounts:
    """One order's counts: the distinct (k + 1)-gram codes (sorted) and their counts;
    the distinct contexts (sorted), how often each is followed by a byte, c(h), and by
    how many distinct bytes, T(h)."""
    grams: np.ndarray
    gram_counts: np.ndarray
    contexts: np.ndarray
    context_counts: np.ndarray
    context_types: np.ndarray


def count_order(data: np.ndarray, k: int) -> OrderCounts:
    codes = gram_codes(data, k)
    if k <= 1:  # at most 2^16 codes: one pass of bincount instead of a sort
        dense = np.bincount(codes, minlength=VOCAB ** (k + 1))
        grams = np.flatnonzero(dense)
        counts = dense[grams]
    else:
        grams, counts = np.unique(codes, return_counts=True)
    contexts, first, types = np.unique(grams >> 8, return_index=True, return_counts=True)
    context_counts = np.add.reduceat(counts, first) if len(first) else counts
    return OrderCounts(grams, counts.astype(np.float64), contexts, context_counts.astype(np.float64),
                       types.astype(np.float64))


def lookup(keys: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """values[index of each query in the sorted keys], 0 where a query is not a key."""
    if len(keys) == 0:
        return np.zeros(len(queries))
    i = np.minimum(np.searchsorted(keys, queries), len(keys) - 1)
    return np.where(keys[i] == queries, values[i], 0.0)


class WittenBell:
    """Interpolated Witten-Bell byte models of orders 0..order, fitted on `train`."""

    def __init__(self, train: np.ndarray, order: int):
        if not 0 <= order <= MAX_ORDER:
            raise UsageError(f"lm: n-gram order must be in 0..{MAX_ORDER} (got {order})")
        if len(train) <= order:
            raise UsageError(f"lm: {len(train)} training bytes are too few for order {order}")
        self.order = order
        self.counts = [count_order(train, k) for k in range(order + 1)]

    def probabilities(self, contexts: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """[order + 1, queries]: P_k(target | its last k context bytes) for k = 0..order.
        contexts: [queries, order] uint8, the bytes before each target, oldest first
        (only the last k are read by order k)."""
        contexts = np.asarray(contexts, dtype=np.int64).reshape(len(targets), self.order)
        targets = np.asarray(targets, dtype=np.int64)
        p = np.full(len(targets), 1.0 / VOCAB)
        out = []
        code = np.zeros(len(targets), dtype=np.int64)  # the last k bytes, oldest highest
        for k, c in enumerate(self.counts):
            if k > 0:
                code = code + contexts[:, self.order - k] * (VOCAB ** (k - 1))
            seen = lookup(c.contexts, c.context_counts, code)
            types = lookup(c.contexts, c.context_types, code)
            joint = lookup(c.grams, c.gram_counts, code * VOCAB + targets)
            with np.errstate(invalid="ignore", divide="ignore"):
                p = np.where(seen > 0, (joint + types * p) / (seen + types), p)
            out.append(p)
        return np.stack(out)

    def distribution(self, context: bytes | np.ndarray, k: int) -> np.ndarray:
        """P_k(w | the last k bytes of `context`) for all 256 bytes w."""
        given = np.frombuffer(bytes(context), dtype=np.uint8).astype(np.int64)
        if not 0 <= k <= min(self.order, len(given)):
            raise UsageError(f"lm: order {k} needs 0 <= k <= {self.order} and k context bytes")
        ctx = np.zeros(self.order, dtype=np.int64)
        if k:
            ctx[self.order - k:] = given[len(given) - k:]
        return self.probabilities(np.tile(ctx, (VOCAB, 1)), np.arange(VOCAB))[k]


def window_bits(model: WittenBell, data: np.ndarray, starts: np.ndarray, context: int) -> np.ndarray:
    """[order + 1, *starts.shape, context]: bits of target t = data[start + t + 1] of every
    window under each order, the context cut at the window's start (order min(k, t + 1))."""
    starts = np.asarray(starts, dtype=np.int64)
    t = np.arange(context)
    target_at = starts[..., None] + t + 1  # [*starts.shape, context]
    before = target_at[..., None] - np.arange(model.order, 0, -1)  # oldest first
    targets = np.asarray(data)[target_at].reshape(-1)
    contexts = np.asarray(data)[np.maximum(before, 0)].reshape(len(targets), model.order)
    p = model.probabilities(contexts, targets)  # [order + 1, queries]
    available = np.broadcast_to(t + 1, target_at.shape).reshape(-1)
    bits = -np.log2(p)
    for k in range(1, model.order + 1):  # where the window holds fewer than k bytes: order t + 1
        short = available < k
        bits[k, short] = bits[available[short], short]
    return bits.reshape((model.order + 1,) + target_at.shape)


def bits_per_byte(bits: np.ndarray) -> float:
    return float(bits.mean()) if bits.size else math.nan
