"""Banded attention: causal softmax attention over the keys within a band of each
query, in time and memory O(n (C + w)) per head instead of O(n^2).

A banded bias holds values[h, i, t], the additive bias of query i and key
j = i - t for 0 <= t <= w (-inf where the key is excluded or j < 0); every key
farther than w has weight 0. The queries are cut into chunks of C rows; chunk c
(queries cC .. cC + C - 1) attends the C + w keys cC - w .. cC + C - 1 (padding
before position 0, excluded by the bias), taken as overlapping windows of the
keys (`unfold`, stride C), so one batched product gives every chunk's
[C, C + w] logits and autograd runs through it as through the dense form. The
result differs from dense attention over the same weights only in the order of
the sums (tests: forward and gradients, to rounding).

Exact ALiBi has weight everywhere, so its band is certified instead
(`alibi_reach`): per head, the smallest w for which the keys left out carry at
most TOL = 2^-24 of each row's kept softmax mass, whatever the weights, from
Cauchy-Schwarz on the layer's own q and k. The output of a row then moves by at
most TOL / (1 + TOL) * (max |v| + |output|): below float32's rounding of it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import torch
from torch.nn import functional as F

MIN_CHUNK = 32  # rows per chunk at least: fewer makes the key windows' copies dominate
TOL = 2.0 ** -24  # ALiBi's left-out mass over the kept mass, per row: float32's half-ulp
NEG_INF = float("-inf")


def chunk_rows(w: int) -> int:
    """Rows per chunk for band w: half the band (n (C + w) logits per head, and
    (n / C)(C + w) copied keys, which C >= d keeps below the logits)."""
    return max(MIN_CHUNK, (w + 1) // 2)


def pays(w: int, n: int) -> bool:
    """Banded attention computes n (C + w) logits per head, dense attention n^2."""
    return chunk_rows(w) + w < n


@dataclass(frozen=True)
class Banded:
    """A bias within band w = values.shape[-1] - 1, values [heads, n, w + 1]."""
    values: torch.Tensor

    @property
    def band(self) -> int:
        return self.values.shape[-1] - 1

    def resolve(self, q: torch.Tensor, k: torch.Tensor) -> "Banded":
        return self


def band_values(bias_of_offset: torch.Tensor, reach: list[int], n: int) -> torch.Tensor:
    """[heads, n, w + 1] from a per-head bias of the offset t ([heads, w + 1]): -inf
    beyond head h's reach[h] and where j = i - t < 0 (w = max reach)."""
    t = torch.arange(bias_of_offset.shape[-1])
    keep = (t[None, :] <= torch.tensor(reach)[:, None])[:, None, :] & (t[None, :] <= torch.arange(n)[:, None])
    return bias_of_offset[:, None, :].expand(-1, n, -1).masked_fill(~keep, NEG_INF)


def chunk_bias(values: torch.Tensor, c: int, chunks: int) -> torch.Tensor:
    """[heads, chunks, c, c + w]: the bias of chunk row r and window key k' (key
    j = cC - w + k', offset t = r + w - k'); padded rows attend their own (zero) key."""
    heads, n, width = values.shape
    w = width - 1
    rows = torch.full((heads, chunks * c, width), NEG_INF, dtype=values.dtype)
    rows[:, :n] = values
    rows[:, n:, 0] = 0.0
    r = torch.arange(c)[:, None]
    t = r + w - torch.arange(c + w)[None, :]
    inside = (t >= 0) & (t <= w)
    index = t.clamp(0, w).expand(heads, chunks, c, c + w)
    out = rows.view(heads, chunks, c, width).gather(-1, index)
    return out.masked_fill(~inside, NEG_INF)


def banded_attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """softmax(q k^T / sqrt(d) + bias) v over [batch, heads, n, d], the bias banded."""
    b, h, n, d = q.shape
    w = values.shape[-1] - 1
    c = chunk_rows(w)
    chunks = -(-n // c)
    pad = chunks * c - n
    qc = F.pad(q, (0, 0, 0, pad)).view(b, h, chunks, c, d)
    kw = F.pad(k, (0, 0, w, pad)).unfold(2, c + w, c)  # [b, h, chunks, d, c + w]: K^T per chunk
    vw = F.pad(v, (0, 0, w, pad)).unfold(2, c + w, c)
    logits = qc @ kw / math.sqrt(d) + chunk_bias(values.to(q.dtype), c, chunks)
    out = torch.softmax(logits, dim=-1) @ vw.transpose(-1, -2)
    return out.reshape(b, h, chunks * c, d)[:, :, :n]


def alibi_reach(sigma: float, spread: float, tol: float = TOL) -> int:
    """The certified band of an ALiBi head. Row i keeps its own key (bias 0), so its
    kept mass is at least exp(l_ii); a key left out, t > w away, has weight
    exp(l_ij - t / sigma) <= exp(l_ii + spread - t / sigma) when spread bounds
    l_ij - l_ii, so the left-out mass over the kept one is at most
    exp(spread) e^-(w + 1)/sigma / (1 - e^-1/sigma). This is the smallest w that
    makes it <= tol."""
    x = sigma * (spread + math.log(1 / tol) - math.log1p(-math.exp(-1 / sigma)))
    return max(0, math.ceil(x) - 1)


@torch.no_grad()
def logit_spread(q: torch.Tensor, k: torch.Tensor) -> list[float]:
    """Per head, a bound on q_i.k_j / sqrt(d) - q_i.k_i / sqrt(d) over rows and keys of
    every sequence: |q_i| (max_j |k_j| + |k_i|) / sqrt(d) (Cauchy-Schwarz), in float64."""
    qn, kn = q.double().norm(dim=-1), k.double().norm(dim=-1)  # [batch, heads, n]
    spread = qn * (kn.amax(dim=-1, keepdim=True) + kn) / math.sqrt(q.shape[-1])
    return spread.amax(dim=(0, 2)).tolist()


@dataclass
class AlibiBand:
    """Exact ALiBi at context n, banded when its certified band pays (decided from each
    layer's q and k, `resolve`), else dense_of() ([heads, n, n], every key; made once)."""
    sigmas: list[float]
    n: int
    dense_of: Callable[[], torch.Tensor]
    _dense: list = field(default_factory=list)

    def resolve(self, q: torch.Tensor, k: torch.Tensor):
        reach = [alibi_reach(s, x) for s, x in zip(self.sigmas, logit_spread(q, k))]
        w = max(reach)
        if not pays(w, self.n):
            if not self._dense:
                self._dense.append(self.dense_of())
            return self._dense[0]
        scale = torch.tensor([1.0 / s for s in self.sigmas], dtype=torch.float32)[:, None]
        offsets = torch.arange(w + 1, dtype=torch.float32)[None, :]
        return Banded(band_values(-scale * offsets, reach, self.n))


def dense_to_band(bias: torch.Tensor, w: int) -> Banded:
    """The band of offsets 0 .. w - 1 of a dense [heads, n, n] bias (-inf where j = i - t < 0)."""
    n = bias.shape[-1]
    t = torch.arange(w)
    j = torch.arange(n)[:, None] - t[None, :]  # [n, w]
    values = bias.gather(-1, j.clamp(min=0).expand(bias.shape[0], n, w))
    return Banded(values.masked_fill(j < 0, NEG_INF))


def cut_to(bias, w: int):
    """`bias` (dense or Banded) with every key w or more positions before its query
    excluded: the query sees its last w bytes (itself included). Unchanged when no
    key is that far (w > band, or w >= n)."""
    if isinstance(bias, Banded):
        return bias if w > bias.band else Banded(bias.values[..., :w])
    n = bias.shape[-1]
    if w >= n:
        return bias
    if pays(w - 1, n):
        return dense_to_band(bias, w)
    i = torch.arange(n)
    return bias.masked_fill((i[:, None] - i[None, :]) >= w, NEG_INF)


@dataclass(frozen=True)
class Cut:
    """A layer's bias (a dense tensor, Banded or AlibiBand) seen through a causal window of
    the last w positions, resolved like the bias itself (the context-use probe: applied
    at evaluation only, never in training)."""
    inner: object
    w: int

    def resolve(self, q: torch.Tensor, k: torch.Tensor):
        inner = self.inner if isinstance(self.inner, torch.Tensor) else self.inner.resolve(q, k)
        return cut_to(inner, self.w)
