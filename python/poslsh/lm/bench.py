"""`poslsh bench lm`: seconds per training step of each attention variant, side by side.

A step sees `tokens` bytes (tokens / n windows of n), as the configs' steps
do (16 windows of 128, 8 of 256), so the contexts compare at equal bytes. For
every context n and variant (exact, nobias, and lsh, fixed and window at
every s, fixed and window matched to lsh's keys per query on its draws), the
same model (same initial weights, same batch of random bytes) takes `repeats`
AdamW steps after one untimed warm-up step; a step is forward, backward and
update, with its bias built as training builds it (lsh: fresh hashes, from
block starts). Also timed alone: building the step's biases. Each is timed as
wall-clock and as this process's CPU time (one thread: the CPU time is what
the step costs when the machine is shared, where wall-clock measures the
other work too); the repeat with the least CPU time is kept. One row per
(n, variant, s): keys per query (mean over heads), seconds per step (wall and
CPU), CPU seconds of bias construction per step, and the CPU times relative to
exact ALiBi at that n.

All variants run dense [heads, n, n] attention here, so a step's time differs
between variants by the bias construction alone; keys per query is what a
block-sparse kernel would pay.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from .attention import Bias, check_sigmas, lsh_keys_per_query
from .model import ByteTransformer, ModelShape, bits_per_byte
from .train import TrainConfig, deterministic, optimizer

COLUMNS = ["n", "variant", "s", "keys_per_query", "seconds_per_step", "cpu_seconds_per_step",
           "bias_cpu_seconds_per_step", "step_vs_exact", "bias_vs_exact"]


@dataclass
class BenchSpec:
    n: list[int]
    s: list[int]
    layers: int
    heads: int
    width: int
    sigmas: list[float]
    tokens: int  # a step sees tokens // n windows of n
    repeats: int
    threads: int

    def __post_init__(self):
        self.sigmas = check_sigmas(self.sigmas, self.heads)


def best_of(repeats: int, f) -> tuple[float, float]:
    """(wall, CPU) seconds of the repeat with the least CPU time."""
    best = (float("inf"), float("inf"))
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        f()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        best = min(best, (wall, cpu), key=lambda b: b[1])
    return best


def variants(spec: BenchSpec, n: int):
    yield "exact", 0, Bias("exact", spec.sigmas, spec.layers)
    yield "nobias", 0, Bias("nobias", spec.sigmas, spec.layers)
    for s in spec.s:
        yield "lsh", s, Bias("lsh", spec.sigmas, spec.layers, s=s)
        for v in ("fixed", "window"):
            yield v, s, Bias(v, spec.sigmas, spec.layers, s=s, train_context=n, cost_draws=(0, 4))


def step_seconds(spec: BenchSpec, n: int, bias: Bias) -> tuple[tuple[float, float], float]:
    """(wall, CPU) seconds of a step, CPU seconds of building its biases."""
    torch.manual_seed(0)
    batch = spec.tokens // n
    cfg = TrainConfig(ModelShape(spec.layers, spec.heads, spec.width), n, batch, 1, 1e-3, 0, 0.1, 1, 0)
    model = ByteTransformer(cfg.shape)
    opt = optimizer(model, cfg)
    tokens = torch.randint(0, 256, (batch, n + 1), generator=torch.Generator().manual_seed(0))
    draw = [0]

    def biases():
        draw[0] += 1
        return [bias(n, layer, draw[0]) for layer in range(spec.layers)]

    def step():
        loss = bits_per_byte(model(tokens[:, :-1], biases()), tokens[:, 1:])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    step()  # warm-up: allocations, the deterministic variants' cached bias
    return best_of(spec.repeats, step), best_of(spec.repeats, biases)[1]


def run(spec: BenchSpec, progress=print) -> str:
    deterministic(spec.threads)
    lines = [",".join(COLUMNS)]
    for n in spec.n:
        exact_step = exact_bias = None
        for variant, s, bias in variants(spec, n):
            (wall, step), build = step_seconds(spec, n, bias)
            if variant == "exact":
                exact_step, exact_bias = step, build
            lsh = lsh_keys_per_query(0, s, spec.sigmas, n, spec.layers, 0, 4) if variant == "lsh" else None
            keys = float(np.mean(bias.keys_per_query(n, lsh)))
            row = [n, variant, s if s else "", f"{keys:.6g}", f"{wall:.6g}", f"{step:.6g}", f"{build:.6g}",
                   f"{step / exact_step:.4g}", f"{build / exact_bias:.4g}"]
            progress(f"n={n} {variant}{f' s={s}' if s else ''}: {1e3 * step:.1f} CPU ms/step "
                     f"({step / exact_step:.2f}x exact; wall {1e3 * wall:.1f} ms), bias {1e3 * build:.2f} CPU ms, "
                     f"{keys:.1f} keys/query")
            lines.append(",".join(map(str, row)))
    return "\n".join(lines) + "\n"
