"""The attention variants the language models compare, as additive logit biases.

Every variant is causal softmax attention softmax(q k^T / sqrt(d) + B) V that
differs only in B, a [heads, n, n] float32 tensor (-inf where a key is
excluded), so the models differ in nothing else:

- exact:   B = -|i - j| / sigma_h (ALiBi, Press et al.'s slopes);
- lsh:     B = log M~, M~ the mean of s block masks of positional hashes
           (MATH §7): exp(q k^T / sqrt(d)) ⊙ M~ normalised by its row sums,
           i.e. the ratio estimator; pairs in no common block are excluded.
           Fresh hashes for every draw (a training step, a validation batch);
           E[M~] = exp(-|i - j| / sigma_h);
- nobias:  B = 0 (the causal mask only);
- fixed:   no bias inside fixed blocks [0, w), [w, 2w), ... of the mean block
           size of the hashes, w_h = round(2 sigma_h) (MATH §8);
- window:  ALiBi restricted to keys i - w_h <= j <= i, w_h chosen so that a
           query attends to as many keys as under lsh at `window_s` hashes
           (equal cost, MATH §8).

The hashes are poslsh's own: head h of layer l at draw t uses
poslsh.draw_hashes(seed, t * layers + l, s, sigma_h), the draws of the CLI for
that seed and trial (heads share one draw rescaled by sigma_h, as `poslsh
attention` does by default), and their blocks are poslsh.block_starts.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

import poslsh

VARIANTS = ("exact", "lsh", "nobias", "fixed", "window")
NEG_INF = float("-inf")


@lru_cache(maxsize=16)
def causal_keep(n: int) -> torch.Tensor:
    """True where key j <= query i."""
    return torch.ones(n, n, dtype=torch.bool).tril()


def distance(n: int) -> torch.Tensor:
    i = torch.arange(n, dtype=torch.float32)
    return (i[:, None] - i[None, :]).abs()


def masked(bias: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    return bias.masked_fill(~(keep & causal_keep(bias.shape[-1])), NEG_INF)


def alibi_values(sigmas: list[float], n: int) -> torch.Tensor:
    scale = torch.tensor([1.0 / s for s in sigmas], dtype=torch.float32)[:, None, None]
    return -scale * distance(n)


def alibi_bias(sigmas: list[float], n: int) -> torch.Tensor:
    return masked(alibi_values(sigmas, n), torch.ones(n, n, dtype=torch.bool))


def block_ids(starts: np.ndarray) -> torch.Tensor:
    """Block index of every position, from block starts (starts[-1] == n)."""
    return torch.repeat_interleave(torch.arange(len(starts) - 1), torch.from_numpy(np.diff(starts)))


def mask_mean(seed: int, trial: int, s: int, sigma: float, n: int,
              dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """M~ [n, n]: the mean of the s block masks of draw_hashes(seed, trial, s, sigma)."""
    pitch, shift = poslsh.draw_hashes(seed, trial, s, sigma)
    ids = torch.stack([block_ids(poslsh.block_starts(p, u, n)) for p, u in zip(pitch, shift)])
    return (ids[:, :, None] == ids[:, None, :]).to(dtype).mean(dim=0)


def lsh_bias(seed: int, trial: int, s: int, sigmas: list[float], n: int,
             dtype: torch.dtype = torch.float32) -> torch.Tensor:
    m = torch.stack([mask_mean(seed, trial, s, sigma, n, dtype) for sigma in sigmas])
    return masked(m.log(), m > 0)


def fixed_width(sigma: float) -> int:
    """The fixed-block width: the hashes' mean block size E[pitch] = 2 sigma."""
    return max(1, round(2 * sigma))


def fixed_bias(sigmas: list[float], n: int) -> torch.Tensor:
    pos = torch.arange(n)
    keeps = [(pos[:, None] // w) == (pos[None, :] // w) for w in map(fixed_width, sigmas)]
    return masked(torch.zeros(len(sigmas), n, n), torch.stack(keeps))


def lsh_keys_per_query(sigma: float, s: int, n: int, draws: int = 64) -> float:
    """Keys a causal query attends to under lsh with s hashes (summed over hashes),
    averaged over `draws` hashes of seed 0 (a fixed, reproducible estimate)."""
    pitch, shift = poslsh.draw_hashes(0, 0, draws, sigma)
    keys = [float((b * (b + 1) / 2).sum()) / n
            for b in (np.diff(poslsh.block_starts(p, u, n)) for p, u in zip(pitch, shift))]
    return s * float(np.mean(keys))


def window_half_width(sigma: float, s: int, n: int) -> int:
    """The causal window i - w <= j <= i (w + 1 keys) of lsh's cost at s hashes."""
    return int(min(n - 1, max(0, round(lsh_keys_per_query(sigma, s, n) - 1))))


def window_bias(sigmas: list[float], half_widths: list[int], n: int) -> torch.Tensor:
    d = distance(n)
    keep = torch.stack([d <= w for w in half_widths])
    return masked(alibi_values(sigmas, n), keep)


class Bias:
    """The additive bias of one variant: bias(n, layer, draw) -> [heads, n, n]."""

    def __init__(self, variant: str, sigmas: list[float], layers: int, s: int = 0, seed: int = 0,
                 window_s: int = 4, train_context: int = 0):
        if variant not in VARIANTS:
            raise ValueError(f"lm: variant must be one of {', '.join(VARIANTS)} (got '{variant}')")
        if variant == "lsh" and s < 1:
            raise ValueError(f"lm: the lsh variant needs s >= 1 hashes (got {s})")
        self.variant, self.sigmas, self.layers, self.s, self.seed = variant, sigmas, layers, s, seed
        # The window's width is fixed at training (cost matched at the training context).
        self.half_widths = [window_half_width(sg, window_s, max(train_context, 1)) for sg in sigmas]
        self._fixed: dict[int, torch.Tensor] = {}

    def __call__(self, n: int, layer: int, draw: int) -> torch.Tensor:
        if self.variant == "lsh":
            return lsh_bias(self.seed, draw * self.layers + layer, self.s, self.sigmas, n)
        if n not in self._fixed:
            self._fixed[n] = self._deterministic(n)
        return self._fixed[n]

    def _deterministic(self, n: int) -> torch.Tensor:
        heads = len(self.sigmas)
        if self.variant == "exact":
            return alibi_bias(self.sigmas, n)
        if self.variant == "nobias":
            return masked(torch.zeros(heads, n, n), torch.ones(n, n, dtype=torch.bool))
        if self.variant == "fixed":
            return fixed_bias(self.sigmas, n)
        return window_bias(self.sigmas, self.half_widths, n)


def describe(bias: Bias) -> str:
    if bias.variant == "window":
        return f"window half-widths {bias.half_widths}"
    if bias.variant == "fixed":
        return f"fixed widths {[fixed_width(s) for s in bias.sigmas]}"
    return bias.variant + (f" s={bias.s}" if bias.variant == "lsh" else "")

