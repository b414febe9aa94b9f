"""Training: AdamW on random windows of the training bytes, resumable bit for bit.

Nothing in a step depends on the steps before it except the weights and the
optimiser's moments: the batch of step t is drawn from a generator keyed by
(seed, t), the learning rate is a function of t, the hashes of step t are
draw t (poslsh.lm.attention). A checkpoint (weights, moments, losses, learning
curve, step times) written atomically every `checkpoint_every` steps therefore
resumes to the same losses and weights as an uninterrupted run, bit for bit,
at a fixed thread count (torch.use_deterministic_algorithms).

A fine-tune (`first_step` > 0) starts from a trained model's weights and
moments and continues the same sequence: its step t (from first_step on) sees
batch (seed, t) and draw t, so every fine-tune of one base model sees the same
batches, at a constant learning rate (where the base's schedule ended, lr/10).

The configuration has no defaults here: they are config.py's (LmConfig), from
which experiment.py builds each cell's.
"""
from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from .attention import Bias
from .errors import UsageError
from .model import ByteTransformer, ModelShape, bits_per_byte


@dataclass(frozen=True)
class TrainConfig:
    shape: ModelShape
    context: int
    batch: int
    steps: int
    lr: float
    warmup: int
    weight_decay: float
    checkpoint_every: int
    curve_every: int  # 0: no learning curve
    first_step: int = 0  # > 0: a fine-tune continuing a model trained for first_step steps

    def __post_init__(self):
        for name in ("context", "batch", "steps", "checkpoint_every"):
            if getattr(self, name) < 1:
                raise UsageError(f"lm: {name} must be >= 1 (got {getattr(self, name)})")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise UsageError(f"lm: lr must be a finite number > 0 (got {self.lr})")
        if self.warmup < 0 or self.weight_decay < 0 or self.curve_every < 0:
            raise UsageError("lm: warmup, weight-decay and curve-every must be >= 0")


@dataclass
class Trained:
    """A training's result: the model, its optimiser state, every step's loss, the
    learning curve [(steps done, mean training loss since the last point or None,
    validation loss)], and the CPU seconds and number of the steps timed (CPU time
    of this one-thread process: what a step costs, also on a shared machine)."""
    model: ByteTransformer
    optimizer: dict
    losses: list[float]
    curve: list[tuple[int, float | None, float]] = field(default_factory=list)
    step_seconds: float = 0.0
    steps_timed: int = 0

    def seconds_per_step(self) -> float | None:
        return self.step_seconds / self.steps_timed if self.steps_timed else None


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
    """Linear warm-up, then cosine decay to a tenth; a fine-tune: constant cfg.lr."""
    if cfg.first_step > 0:
        return cfg.lr
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
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)  # atomic: an interruption leaves the previous checkpoint


Curve = Callable[[ByteTransformer], float]  # the model's validation loss


def curve_due(done: int, cfg: TrainConfig) -> bool:
    return cfg.curve_every > 0 and (done % cfg.curve_every == 0 or done == cfg.steps)


def train_step(model: ByteTransformer, opt: torch.optim.AdamW, biases: list, x: torch.Tensor,
               y: torch.Tensor, lr: float | None = None) -> torch.Tensor:
    """One AdamW step on the batch (x, y) with each layer's bias: the step every training,
    fine-tune and `poslsh bench lm` point takes (lr None: the optimiser's own). Its loss."""
    if lr is not None:
        for group in opt.param_groups:
            group["lr"] = lr
    loss = bits_per_byte(model(x, biases), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss


def train(data: np.ndarray, bias: Bias, cfg: TrainConfig, seed: int,
          checkpoint: Path | None = None, label: str = "", curve: Curve | None = None,
          start: dict | None = None) -> Trained:
    """Trains from scratch, or from `start` ({"model", "optimizer"} state dicts: a
    fine-tune, cfg.first_step > 0), or from `checkpoint` when it exists. With
    `curve`, a point of the learning curve every cfg.curve_every steps (and at step 0
    and the last). A line of progress on stderr every tenth of the steps, unless
    `label` is empty."""
    torch.manual_seed(seed)
    model = ByteTransformer(cfg.shape)
    opt = optimizer(model, cfg)
    if start is not None:
        model.load_state_dict(start["model"])
        opt.load_state_dict(start["optimizer"])
    result = Trained(model, {}, [])
    if checkpoint is not None and checkpoint.exists():
        state = torch.load(checkpoint)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        result.losses, result.curve = state["losses"], state["curve"]
        result.step_seconds, result.steps_timed = state["step_time"]
    elif curve is not None and cfg.curve_every > 0:
        result.curve.append((0, None, curve(model)))
    t0 = time.monotonic()
    for local in range(len(result.losses), cfg.steps):
        step = cfg.first_step + local
        tick = time.process_time()
        x, y = training_batch(data, seed, step, cfg)
        loss = train_step(model, opt, [bias(cfg.context, l, step) for l in range(cfg.shape.layers)], x, y,
                          learning_rate(step, cfg))
        result.step_seconds += time.process_time() - tick
        result.steps_timed += 1
        result.losses.append(loss.item())
        done = local + 1
        if curve is not None and curve_due(done, cfg):
            since = result.curve[-1][0] if result.curve else 0
            result.curve.append((done, float(np.mean(result.losses[since:])), curve(model)))
        if checkpoint is not None and (done % cfg.checkpoint_every == 0 or done == cfg.steps):
            save_checkpoint(checkpoint, {"model": model.state_dict(), "optimizer": opt.state_dict(),
                                         "losses": result.losses, "curve": result.curve,
                                         "step_time": (result.step_seconds, result.steps_timed)})
        if label and done % max(1, cfg.steps // 10) == 0:
            print(f"lm {label}: step {done}/{cfg.steps}, loss {loss.item():.3f} bits/byte "
                  f"({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)
    result.optimizer = opt.state_dict()
    return result
