"""A small decoder-only transformer over bytes (nanoGPT's shape, no position
embedding: position enters only through the attention bias, as in ALiBi;
shape.positions "sinusoidal" adds Vaswani et al.'s sinusoidal absolute
position embedding to the inputs instead, scaled to the token embeddings'
initial spread, POSITION_SCALE: the length-extrapolation control).

Pre-LayerNorm blocks of causal multi-head attention and a 4x GELU MLP, tied
input and output embeddings, no dropout (training is then a deterministic
function of the seed). forward(tokens, biases) takes one bias per layer
(poslsh.lm.attention: a dense [heads, n, n] tensor or a band, poslsh.lm.band),
so the same weights run under any variant.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from .band import Banded, banded_attend
from .errors import UsageError

VOCAB = 256  # bytes
POSITIONS = ("none", "sinusoidal")
POSITION_SCALE = 0.02  # the token embeddings' initial standard deviation (_init)


@dataclass(frozen=True)
class ModelShape:
    layers: int = 4
    heads: int = 4
    width: int = 128
    positions: str = "none"  # or "sinusoidal": absolute positions added to the inputs

    def __post_init__(self):
        if self.positions not in POSITIONS:
            raise UsageError(f"lm: positions must be one of {', '.join(POSITIONS)} (got '{self.positions}')")
        for name in ("layers", "heads", "width"):
            if getattr(self, name) < 1:
                raise UsageError(f"lm: {name} must be >= 1 (got {getattr(self, name)})")
        if self.width % self.heads:
            raise UsageError(f"lm: width ({self.width}) must be a multiple of heads ({self.heads})")


def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias) -> torch.Tensor:
    """softmax(q k^T / sqrt(d) + bias) v over [..., heads, n, d] tensors; a band's bias
    (resolve: its band from q and k) in O(n w) per head (poslsh.lm.band)."""
    if not isinstance(bias, torch.Tensor):
        bias = bias.resolve(q, k)
    if isinstance(bias, Banded):
        return banded_attend(q, k, v, bias.values)
    logits = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) + bias
    return torch.softmax(logits, dim=-1) @ v


class Attention(nn.Module):
    def __init__(self, shape: ModelShape):
        super().__init__()
        self.heads = shape.heads
        self.qkv = nn.Linear(shape.width, 3 * shape.width)
        self.out = nn.Linear(shape.width, shape.width)

    def qkv_heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Q, K, V as [batch, heads, n, d] (what the swap-in study reads)."""
        b, n, w = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        return q, k, v

    def forward(self, x: torch.Tensor, bias) -> torch.Tensor:
        y = attend(*self.qkv_heads(x), bias)
        return self.out(y.transpose(1, 2).reshape(x.shape))


class Block(nn.Module):
    def __init__(self, shape: ModelShape):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(shape.width), nn.LayerNorm(shape.width)
        self.attn = Attention(shape)
        self.mlp = nn.Sequential(nn.Linear(shape.width, 4 * shape.width), nn.GELU(),
                                 nn.Linear(4 * shape.width, shape.width))

    def forward(self, x: torch.Tensor, bias) -> torch.Tensor:
        x = x + self.attn(self.ln1(x), bias)
        return x + self.mlp(self.ln2(x))


class ByteTransformer(nn.Module):
    def __init__(self, shape: ModelShape):
        super().__init__()
        self.shape = shape
        self.embed = nn.Embedding(VOCAB, shape.width)
        self.blocks = nn.ModuleList(Block(shape) for _ in range(shape.layers))
        self.ln = nn.LayerNorm(shape.width)
        self.apply(_init)

    def forward(self, tokens: torch.Tensor, biases: list, positions: torch.Tensor | None = None) -> torch.Tensor:
        """Logits [batch, n, 256]; `positions` (default 0 .. n - 1) are what a sinusoidal
        model embeds (others ignore them)."""
        x = self.embed(tokens)
        if self.shape.positions == "sinusoidal":
            p = torch.arange(tokens.shape[-1]) if positions is None else positions
            x = x + POSITION_SCALE * sinusoids(p, self.shape.width)
        for block, bias in zip(self.blocks, biases, strict=True):
            x = block(x, bias)
        return self.ln(x) @ self.embed.weight.T  # tied output embedding


def sinusoids(positions: torch.Tensor, width: int) -> torch.Tensor:
    """[n, width]: sin(p / 10000^(2i / width)) in column 2i, cos in 2i + 1 (Vaswani et al.)."""
    i = torch.arange(0, width, 2, dtype=torch.float64)
    angle = positions.to(torch.float64)[:, None] / torch.pow(10000.0, i / width)[None, :]
    out = torch.zeros(len(positions), width, dtype=torch.float64)
    out[:, 0::2] = torch.sin(angle)
    out[:, 1::2] = torch.cos(angle[:, :width // 2])
    return out.to(torch.float32)


def _init(module: nn.Module) -> None:
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, std=0.02)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)


def bits_per_byte(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy in bits per byte (per token: tokens are bytes)."""
    return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1)) / math.log(2)
