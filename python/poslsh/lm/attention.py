"""The attention variants the language models compare, as additive logit biases.

Every variant is causal softmax attention softmax(q k^T / sqrt(d) + B) V that
differs only in B, a [heads, n, n] float32 tensor (-inf where a key is
excluded), so the models differ in nothing else. Head h has ALiBi scale
sigma_h (the `sigmas` setting; Press et al.'s slopes by default).

- exact:   B = -|i - j| / sigma_h (ALiBi);
- lsh:     B = log M~, M~ the mean of s block masks of positional hashes
           (MATH §7): exp(q k^T / sqrt(d)) ⊙ M~ normalised by its row sums,
           i.e. the ratio estimator; pairs in no common block are excluded.
           Fresh hashes for every draw (a training step, a validation batch);
           E[M~] = exp(-|i - j| / sigma_h);
- nobias:  B = 0 (the causal mask only);
- sinusoidal: B = 0 as nobias, the model adding sinusoidal absolute position
           embeddings to its inputs instead (poslsh.lm.model): the claim-4
           control, known to degrade beyond the context it trained at;
- fixed:   B = log F, F the mean of s deterministic grids with evenly spaced
           shifts (grid k starts its blocks at round(k w / s) + multiples of
           its width), the widths chosen so that the grids visit as many keys
           per query as lsh's s hashes do on the same draws: positional LSH
           with its randomness taken out (pitch fixed, shifts evenly spread),
           at equal cost. At s = 1 it is one grid, the paper's fixed blocks;
- window:  ALiBi restricted to keys i - w_h <= j <= i, w_h chosen so that a
           query attends to as many keys as under lsh at the same s, measured
           on the same draws (equal cost, MATH §8);
- fixed-block: the paper's fixed blocks (MATH §8): one grid of blocks of
           width round(2 sigma_h) (E[pitch], the mean block of a positional
           hash; `poslsh attention`'s fixed estimator), starting at 0, no bias
           inside a block. Not matched in cost: about sigma_h keys per query,
           near lsh's at s = 1.

Every variant is also a band provider: a call gives the layer's bias either
dense ([heads, n, n]) or banded (poslsh.lm.band: the bias of key i - t for
0 <= t <= w), banded whenever that computes fewer logits (band.pays), which
is exact whenever the weights vanish beyond the band: lsh (w: the draw's
largest block - 1), the fixed grids and fixed-block (their widest block - 1),
the window (its half-width). Exact ALiBi's band is certified from each
layer's q and k (band.alibi_reach); nobias stays dense. `Bias.dense` gives
the dense form of every variant (what the banded one is tested against).

Cost is keys per query, summed over hashes or grids (what block-diagonal
attention computes): a causal query i of a block starting at a visits the
i - a + 1 keys a..i. `keys_per_query` gives it for every variant.

The hashes are poslsh's own: with draws "shared" (the default) head h of layer
l at draw t uses poslsh.draw_hashes(seed, t * layers + l, s, sigma_h), the
draws of the CLI for that seed and trial (heads share one draw rescaled by
sigma_h, as `poslsh attention` does by default); with draws "per-head" each
head has its own independent draw, trial (t * layers + l) * heads + h (one
trial index per (draw, layer, head), none shared). Their blocks are
poslsh.block_starts. The
bias of one draw is built from the block starts in O(n + blocks) per hash
(a causal query's keys in one block are the contiguous range a..i), then one
O(n^2) prefix sum for all s hashes, not s dense n x n masks.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

import poslsh

from .band import AlibiBand, Banded, Cut, alibi_reach, band_values, pays
from .errors import UsageError

from .config import DRAWS, MATCHED, POSITION_EMBEDDED, VARIANTS  # noqa: F401 (re-exported)
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


def block_start_of(starts: np.ndarray) -> np.ndarray:
    """The start of every position's block, from block starts (starts[-1] == n): O(n + blocks)."""
    return np.repeat(starts[:-1], np.diff(starts))


def causal_keys(starts: np.ndarray) -> float:
    """Keys per causal query of one grid of blocks: (1/n) sum over blocks of b (b + 1) / 2."""
    b = np.diff(starts).astype(np.float64)
    return float((b * (b + 1) / 2).sum() / starts[-1])


def mean_of_block_masks(grids: list[list[np.ndarray]], n: int,
                        dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """[heads, n, n]: per head, the causal mean of its grids' block masks, from each
    grid's block starts. Query i shares a block with key j <= i under a grid iff j is
    at least the start a(i) of i's block, so the number of such grids is a prefix sum
    over j of one mark per grid at (i, a(i)): O(n + blocks) per grid, then one prefix
    sum over [heads, n, n] for all of them (not one dense n x n mask per grid)."""
    rows = np.arange(n) * n
    index = np.concatenate([h * n * n + rows + block_start_of(starts)
                            for h, head in enumerate(grids) for starts in head])
    marks = torch.zeros(len(grids) * n * n, dtype=dtype)
    marks.index_add_(0, torch.from_numpy(index), torch.ones(len(index), dtype=dtype))
    counts = marks.view(len(grids), n, n).cumsum(dim=2)  # integers: exact in float32 up to 2^24
    return counts / torch.tensor([len(head) for head in grids], dtype=dtype)[:, None, None]


def hash_starts(seed: int, trial: int, s: int, sigma: float, n: int) -> list[np.ndarray]:
    pitch, shift = poslsh.draw_hashes(seed, trial, s, sigma)
    return [poslsh.block_starts(p, u, n) for p, u in zip(pitch, shift)]


def head_trial(trial: int, head: int, heads: int, hash_draws: str) -> int:
    """The poslsh trial index of head `head` at the (draw, layer) trial `trial`: the trial
    itself when heads share a draw, (trial) * heads + head when each head has its own."""
    if hash_draws not in DRAWS:
        raise UsageError(f"lm: draws must be one of {', '.join(DRAWS)} (got '{hash_draws}')")
    return trial if hash_draws == "shared" else trial * heads + head


def lsh_starts(seed: int, trial: int, s: int, sigmas: list[float], n: int,
               hash_draws: str = "shared") -> list[list[np.ndarray]]:
    return [hash_starts(seed, head_trial(trial, h, len(sigmas), hash_draws), s, sigma, n)
            for h, sigma in enumerate(sigmas)]


def grids_dense(grids: list[list[np.ndarray]], n: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """[heads, n, n]: the log of the mean of each head's block masks (-inf: no common block)."""
    m = mean_of_block_masks(grids, n, dtype)
    return masked(m.log(), m > 0)


def grids_reach(grids: list[list[np.ndarray]]) -> int:
    """The band of block-diagonal masks: a query sees at most its widest block - 1 keys back."""
    return max(int(np.diff(starts).max()) for head in grids for starts in head) - 1


def grids_band(grids: list[list[np.ndarray]], n: int) -> Banded:
    """The banded form of grids_dense: values[h, i, t] is the log of the share of head h's
    grids in which key i - t shares query i's block, i.e. t <= i - a(i); one mark per grid
    at (i, i - a(i)), then a prefix sum over t from the far end (the same integer counts,
    divided and logged as grids_dense does: the same values)."""
    width = grids_reach(grids) + 1
    rows = np.arange(n)
    index = np.concatenate([(h * n + rows) * width + rows - block_start_of(starts)
                            for h, head in enumerate(grids) for starts in head])
    marks = torch.zeros(len(grids) * n * width)
    marks.index_add_(0, torch.from_numpy(index), torch.ones(len(index)))
    counts = marks.view(len(grids), n, width).flip(-1).cumsum(dim=-1).flip(-1)
    m = counts / torch.tensor([len(head) for head in grids], dtype=torch.float32)[:, None, None]
    return Banded(m.log().masked_fill(m <= 0, NEG_INF))


def grids_form(grids: list[list[np.ndarray]], n: int):
    return grids_band(grids, n) if pays(grids_reach(grids), n) else grids_dense(grids, n)


def lsh_bias(seed: int, trial: int, s: int, sigmas: list[float], n: int,
             dtype: torch.dtype = torch.float32, hash_draws: str = "shared") -> torch.Tensor:
    return grids_dense(lsh_starts(seed, trial, s, sigmas, n, hash_draws), n, dtype)


def lsh_keys_per_query(seed: int, s: int, sigmas: list[float], n: int, layers: int,
                       first_draw: int, draws: int, hash_draws: str = "shared") -> list[float]:
    """Per head: lsh's keys per causal query at s hashes (summed over hashes), the mean
    over the draws first_draw .. first_draw + draws - 1 of every layer: the draws a
    training of that seed uses (poslsh.lm.train), so equal cost is measured on them."""
    out = []
    for h, sigma in enumerate(sigmas):
        trial = lambda t, l: head_trial(t * layers + l, h, len(sigmas), hash_draws)  # noqa: E731
        keys = [sum(causal_keys(st) for st in hash_starts(seed, trial(t, l), s, sigma, n))
                for t in range(first_draw, first_draw + draws) for l in range(layers)]
        out.append(float(np.mean(keys)))
    return out


def window_keys(w: int, n: int) -> float:
    """Keys per causal query of the window i - w <= j <= i: (1/n) sum_i (min(i, w) + 1)."""
    w = min(w, n - 1)
    return (w + 1) - w * (w + 1) / (2 * n)


def window_half_width(target_keys: float, n: int) -> int:
    """The causal window whose keys per query are nearest target_keys (consecutive
    half-widths differ by less than one key, so within half a key unless the target
    exceeds exact attention's (n + 1) / 2, where the window is the whole context)."""
    return min(range(n), key=lambda w: (abs(window_keys(w, n) - target_keys), w))


def grid_starts(width: int, shift: int, n: int) -> np.ndarray:
    """Blocks [0, shift), [shift, shift + width), ... cut at n (shift 0: no first block)."""
    starts = [0] + list(range(shift if shift > 0 else width, n, width)) + [n]
    return np.array(sorted(set(starts)), dtype=np.int64)


def fixed_grids(target_keys: float, s: int, n: int) -> list[tuple[int, int]]:
    """(width, shift) of s grids with evenly spaced shifts whose keys per query, summed,
    are nearest target_keys: every grid of width w or w + 1, shift round(k w / s) for
    grid k. The first w whose all-w and all-(w + 1) costs bracket the target, then the
    number of wider grids (each adds about half a key); shifts cut a partial first
    block, so the cost is not monotone in w near n, and w is searched, not bisected.
    A target above s whole-context grids' cost, s (n + 1) / 2, gets those grids."""
    def grids(w: int, wider: int) -> list[tuple[int, int]]:
        return [(min(n, w + (k < wider)), round(k * w / s) % max(w, 1)) for k in range(s)]

    def cost(g: list[tuple[int, int]]) -> float:
        return sum(causal_keys(grid_starts(w, u, n)) for w, u in g)

    best = grids(n, 0)
    for w in range(1, n):
        low, high = cost(grids(w, 0)), cost(grids(w, s))
        if low <= target_keys <= high:
            best = min((grids(w, k) for k in range(s + 1)), key=lambda g: abs(cost(g) - target_keys))
            break
        best = min([best, grids(w, 0), grids(w, s)], key=lambda g: abs(cost(g) - target_keys))
    return best


def fixed_keys(grids: list[tuple[int, int]], n: int) -> float:
    return sum(causal_keys(grid_starts(w, u, n)) for w, u in grids)


def fixed_starts(grids_per_head: list[list[tuple[int, int]]], n: int) -> list[list[np.ndarray]]:
    return [[grid_starts(w, u, n) for w, u in grids] for grids in grids_per_head]


def fixed_bias(grids_per_head: list[list[tuple[int, int]]], n: int) -> torch.Tensor:
    return grids_dense(fixed_starts(grids_per_head, n), n)


def block_width(sigma: float) -> int:
    """fixed-block's width: round(2 sigma) = E[pitch], at least 1."""
    return max(1, round(2 * sigma))


def window_bias(sigmas: list[float], half_widths: list[int], n: int) -> torch.Tensor:
    d = distance(n)
    keep = torch.stack([d <= w for w in half_widths])
    return masked(alibi_values(sigmas, n), keep)


def window_form(sigmas: list[float], half_widths: list[int], n: int):
    w = max(half_widths)
    if not pays(w, n):
        return window_bias(sigmas, half_widths, n)
    scale = torch.tensor([1.0 / s for s in sigmas], dtype=torch.float32)[:, None]
    return Banded(band_values(-scale * torch.arange(w + 1, dtype=torch.float32)[None, :], half_widths, n))


def alibi_form(sigmas: list[float], n: int):
    """Exact ALiBi: banded by each layer's certified band (band.AlibiBand) when even the
    narrowest one (q, k = 0) pays, else dense."""
    if pays(max(alibi_reach(s, 0.0) for s in sigmas), n):
        return AlibiBand(sigmas, n, lambda: alibi_bias(sigmas, n))
    return alibi_bias(sigmas, n)


class Bias:
    """The bias of one variant: bias(n, layer, draw) -> a dense [heads, n, n] tensor or a
    band (poslsh.lm.band: Banded, or AlibiBand, whose band comes from the layer's q, k);
    bias.dense(n, layer, draw) -> the dense form, always.

    lsh draws hashes `seed` at trial draw * layers + layer (`draws` "per-head": each
    head its own, head_trial). fixed and window are
    matched to lsh at s hashes of seed `cost_seed` over the draws cost_draws
    (first, count) at the context `train_context` (their shape is then fixed, also
    at longer evaluation contexts). fixed-block has its width, round(2 sigma_h)."""

    def __init__(self, variant: str, sigmas: list[float], layers: int, s: int = 0, seed: int = 0,
                 train_context: int = 0, cost_seed: int = 0, cost_draws: tuple[int, int] = (0, 1),
                 draws: str = "shared"):
        if variant not in VARIANTS:
            raise UsageError(f"lm: variant must be one of {', '.join(VARIANTS)} (got '{variant}')")
        if variant in MATCHED and s < 1:
            raise UsageError(f"lm: the {variant} variant needs s >= 1 (got {s})")
        self.variant, self.sigmas, self.layers, self.s, self.seed = variant, sigmas, layers, s, seed
        self.train_context, self.cost_seed, self.cost_draws = train_context, cost_seed, cost_draws
        head_trial(0, 0, 1, draws)  # checks the setting
        self.draws = draws
        self.half_widths: list[int] = []
        self.grids: list[list[tuple[int, int]]] = []
        self.lsh_keys: list[float] = []  # lsh's keys per query on the matched draws
        if variant in ("fixed", "window"):
            n = max(train_context, 2)
            self.lsh_keys = lsh_keys_per_query(cost_seed, s, sigmas, n, layers, *cost_draws, draws)
            if variant == "window":
                self.half_widths = [window_half_width(k, n) for k in self.lsh_keys]
            else:
                self.grids = [fixed_grids(k, s, n) for k in self.lsh_keys]
        if variant == "fixed-block":
            self.grids = [[(block_width(sigma), 0)] for sigma in sigmas]
        self._fixed: dict[tuple[int, bool], object] = {}

    def arguments(self) -> dict:
        """The constructor's arguments (a kept model's config)."""
        return {"variant": self.variant, "sigmas": self.sigmas, "layers": self.layers, "s": self.s,
                "seed": self.seed, "train_context": self.train_context, "cost_seed": self.cost_seed,
                "cost_draws": list(self.cost_draws), "draws": self.draws}

    def __call__(self, n: int, layer: int, draw: int):
        return self._form(n, layer, draw, banded=True)

    def dense(self, n: int, layer: int, draw: int) -> torch.Tensor:
        return self._form(n, layer, draw, banded=False)

    def _form(self, n: int, layer: int, draw: int, banded: bool):
        if self.variant == "lsh":
            starts = lsh_starts(self.seed, draw * self.layers + layer, self.s, self.sigmas, n, self.draws)
            return grids_form(starts, n) if banded else grids_dense(starts, n)
        if (n, banded) not in self._fixed:
            self._fixed[(n, banded)] = self._deterministic(n, banded)
        return self._fixed[(n, banded)]

    def keys_per_query(self, n: int, lsh_keys: list[float] | None = None) -> list[float]:
        """Per head, keys per causal query at context n (lsh: `lsh_keys`, measured on its draws)."""
        if self.variant == "lsh":
            return list(lsh_keys or [])
        if self.variant == "window":
            return [window_keys(w, n) for w in self.half_widths]
        if self.variant in ("fixed", "fixed-block"):
            return [fixed_keys(g, n) for g in self.grids]
        return [(n + 1) / 2] * len(self.sigmas)

    def _deterministic(self, n: int, banded: bool):
        heads = len(self.sigmas)
        if self.variant == "exact":
            return alibi_form(self.sigmas, n) if banded else alibi_bias(self.sigmas, n)
        if self.variant in ("nobias", "sinusoidal"):
            return masked(torch.zeros(heads, n, n), torch.ones(n, n, dtype=torch.bool))
        if self.variant in ("fixed", "fixed-block"):
            starts = fixed_starts(self.grids, n)
            return grids_form(starts, n) if banded else grids_dense(starts, n)
        if banded:
            return window_form(self.sigmas, self.half_widths, n)
        return window_bias(self.sigmas, self.half_widths, n)


class CutBias:
    """The context-use probe: `bias` (any variant, draws included) with every query cut to
    its last w positions (band.Cut), for evaluation only: w = 1 attends to the query
    itself, w >= n is `bias` unchanged."""

    def __init__(self, bias: Bias, w: int):
        if w < 1:
            raise UsageError(f"lm: a context cut needs w >= 1 (got {w})")
        self.bias, self.w = bias, w

    def __call__(self, n: int, layer: int, draw: int) -> Cut:
        return Cut(self.bias(n, layer, draw), self.w)


def describe(bias: Bias) -> str:
    if bias.variant == "window":
        return f"window s={bias.s} half-widths {bias.half_widths}"
    if bias.variant == "fixed":
        return f"fixed s={bias.s} widths {[sorted({w for w, _ in g}) for g in bias.grids]}"
    if bias.variant == "fixed-block":
        return f"fixed-block widths {[g[0][0] for g in bias.grids]}"
    return bias.variant + (f" s={bias.s}" if bias.variant == "lsh" else "")
