"""Training: AdamW on random windows of the training bytes, resumable bit for bit.

Nothing in a step depends on the steps before it except the weights and the
optimiser's moments: the batch of step t is drawn from a generator keyed by
(seed, t), the learning rate is a function of t, the hashes of step t are
draw t (poslsh.lm.attention). A checkpoint (weights, moments, step, losses)
written atomically every `checkpoint_every` steps therefore resumes to the
same losses and weights as an uninterrupted run, bit for bit, at a fixed
thread count (torch.use_deterministic_algorithms).
"""
from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .attention import Bias
from .model import ByteTransformer, ModelShape, bits_per_byte


@dataclass(frozen=True)
class TrainConfig:
    shape: ModelShape
    context: int = 128
    batch: int = 16
    steps: int = 400
    lr: float = 3e-3
    warmup: int = 40
    weight_decay: float = 0.1
    checkpoint_every: int = 50

    def __post_init__(self):
        for name in ("context", "batch", "steps", "checkpoint_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"lm: {name} must be >= 1 (got {getattr(self, name)})")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"lm: lr must be a finite number > 0 (got {self.lr})")
        if self.warmup < 0 or self.weight_decay < 0:
            raise ValueError("lm: warmup and weight-decay must be >= 0")


def deterministic(threads: int) -> None:
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)


def windows(data: np.ndarray, starts: np.ndarray, context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and next-byte targets of the windows data[start : start + context + 1]."""
    chunk = torch.from_numpy(np.stack([data[s:s + context + 1] for s in starts]).astype(np.int64))
    return chunk[:, :-1], chunk[:, 1:]


def training_batch(data: np.ndarray, seed: int, step: int, cfg: TrainConfig):
    starts = np.random.default_rng([seed, step]).integers(0, len(data) - cfg.context - 1, cfg.batch)
    return windows(data, starts, cfg.context)


def learning_rate(step: int, cfg: TrainConfig) -> float:
    """Linear warm-up, then cosine decay to a tenth."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    progress = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
    return cfg.lr * (0.1 + 0.45 * (1 + math.cos(math.pi * progress)))


def optimizer(model: ByteTransformer, cfg: TrainConfig) -> torch.optim.AdamW:
    matrices = [p for p in model.parameters() if p.dim() >= 2]
    others = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": matrices, "weight_decay": cfg.weight_decay},
                              {"params": others, "weight_decay": 0.0}],
                             lr=cfg.lr, betas=(0.9, 0.95))


def save_checkpoint(path: Path, state: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)  # atomic: an interruption leaves the previous checkpoint


def train(data: np.ndarray, bias: Bias, cfg: TrainConfig, seed: int,
          checkpoint: Path | None = None, label: str = "") -> tuple[ByteTransformer, list[float]]:
    """Trains from scratch (or from `checkpoint`); returns the model and every step's loss.
    A line of progress on stderr every tenth of the steps, unless `label` is empty."""
    torch.manual_seed(seed)
    model = ByteTransformer(cfg.shape)
    opt = optimizer(model, cfg)
    losses: list[float] = []
    if checkpoint is not None and checkpoint.exists():
        state = torch.load(checkpoint)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        losses = state["losses"]
    t0 = time.monotonic()
    for step in range(len(losses), cfg.steps):
        x, y = training_batch(data, seed, step, cfg)
        for group in opt.param_groups:
            group["lr"] = learning_rate(step, cfg)
        loss = bits_per_byte(model(x, [bias(cfg.context, l, step) for l in range(cfg.shape.layers)]), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        done = step + 1
        if checkpoint is not None and (done % cfg.checkpoint_every == 0 or done == cfg.steps):
            save_checkpoint(checkpoint, {"model": model.state_dict(), "optimizer": opt.state_dict(),
                                         "losses": losses})
        if label and done % max(1, cfg.steps // 10) == 0:
            print(f"lm {label}: step {done}/{cfg.steps}, loss {loss.item():.3f} bits/byte "
                  f"({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)
    return model, losses
