"""Positional-LSH attention for your own PyTorch model: the additive biases and
banded attention (stable names; the language models of ``poslsh.lm`` use the
same code).

Causal softmax attention with an additive bias is
``softmax(q k^T / sqrt(d) + B) v``. For ALiBi, ``B[h, i, j] = -(i - j) /
sigma_h``; positional LSH replaces ``exp(B)`` by ``M~``, the mean of ``s`` 0/1
block masks of positional hashes (``E[M~] = exp(-|i - j| / sigma_h)``), that is
``B = log M~`` (``-inf`` where a query and a key share no block). Pass it as
``attn_mask`` to ``torch.nn.functional.scaled_dot_product_attention``, or, for
long n, use the banded form: a query's keys all lie within its largest block,
so the bias is stored as ``values[h, i, t]`` for key ``j = i - t``,
``0 <= t <= w``, and ``banded_attention`` computes in ``O(n (C + w))`` per head
instead of ``O(n^2)``. Both forms give the same attention to float32 rounding.

The hashes are ``poslsh.draw_hashes(seed, trial, s, sigma_h)``: the same bits
as the CLI for the same seed and trial. Draw fresh hashes (a new ``trial``) for
every training step: the estimator is unbiased over draws, not within one.
torch is imported with this module (``import poslsh`` alone does not need it).
"""
from __future__ import annotations

import torch

from .lm import attention as _variants
from .lm import band as _band

__all__ = ["alibi_bias", "lsh_bias", "lsh_bias_banded", "banded_attention"]


def _check(sigmas, n: int, s: int | None = None) -> list[float]:
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1 (got {n!r})")
    if s is not None and (not isinstance(s, int) or s < 1):
        raise ValueError(f"s must be an integer >= 1 (got {s!r})")
    sigmas = [float(x) for x in sigmas]
    if not sigmas or not all(x > 0 and x < float("inf") for x in sigmas):
        raise ValueError(f"sigmas must be one or more finite numbers > 0 (got {sigmas})")
    return sigmas


def alibi_bias(sigmas, n: int) -> torch.Tensor:
    """Exact causal ALiBi bias: float32 [H, n, n], ``-(i - j) / sigma_h`` for j <= i, -inf above."""
    return _variants.alibi_bias(_check(sigmas, n), n)


def lsh_bias(sigmas, n: int, s: int, *, seed: int = 0, trial: int = 0, draws: str = "shared",
             dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Causal positional-LSH bias: [H, n, n] of ``dtype``, ``log`` of the mean of s block masks.

    Head h uses the hashes ``poslsh.draw_hashes(seed, trial, s, sigmas[h])``
    (``draws="shared"``: one draw rescaled per head) or its own independent
    draw (``draws="per-head"``: trial ``trial * H + h``).
    """
    sigmas = _check(sigmas, n, s)
    return _variants.lsh_bias(seed, trial, s, sigmas, n, dtype, draws)


def lsh_bias_banded(sigmas, n: int, s: int, *, seed: int = 0, trial: int = 0,
                    draws: str = "shared") -> torch.Tensor:
    """The same bias as ``lsh_bias``, banded: float32 [H, n, w + 1], ``values[h, i, t]``
    the bias of key ``i - t`` (-inf where excluded); w is the draw's largest block - 1."""
    sigmas = _check(sigmas, n, s)
    return _variants.grids_band(_variants.lsh_starts(seed, trial, s, sigmas, n, draws), n).values


def banded_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                     values: torch.Tensor) -> torch.Tensor:
    """``softmax(q k^T / sqrt(d) + bias) v`` for q, k, v [batch, H, n, d] and a banded
    bias ``values`` [H, n, w + 1]; returns [batch, H, n, d] in q's dtype (autograd runs through it)."""
    if q.dim() != 4 or q.shape != k.shape or q.shape != v.shape:
        raise ValueError(f"q, k and v must share one shape [batch, H, n, d] (got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)})")
    if values.dim() != 3 or values.shape[:2] != q.shape[1:3]:
        raise ValueError(f"values must be [H, n, w + 1] with H, n = {tuple(q.shape[1:3])} "
                         f"(got {tuple(values.shape)})")
    return _band.banded_attend(q, k, v, values)
