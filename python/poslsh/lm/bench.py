"""`poslsh bench lm`: seconds per training step and peak memory of each attention
variant, side by side, against the context n.

A step sees `batch` windows of n (or, with batch 0, tokens / n windows: equal
bytes per step). For every context n the points are (those of `variants`): exact ALiBi on dense
[heads, n, n] attention (the reference every model trained with before banded
attention), exact ALiBi as training runs it (banded by its certified band when
that pays, poslsh.lm.band), nobias (dense), sinusoidal (nobias's attention,
the model adding absolute positions: claim 4's control), fixed-block, and lsh, fixed and
window at every s (fixed and window matched to lsh's keys per query on its
draws). Each point runs in a fresh Python process (one thread): the same model
(same initial weights, same batch of random bytes) takes `repeats` AdamW steps
after one untimed warm-up step; a step is training's own (poslsh.lm.train.train_step:
forward, backward, gradient clipping, update), with its biases built as training
builds them (lsh: fresh hashes). Also timed alone:
building the step's biases. The repeat with the least CPU time is kept (the CPU
time is what a step costs on a shared machine). The process's peak resident
memory (getrusage) is the point's peak, fixed overhead (Python, torch, the
model) included. A point may use at most half the machine's memory (an address
space limit): beyond it the row says so (peak_mib "over ...") instead of
pushing the machine into swap.

One row per point: n, variant, s, attention (banded or dense: what the step
ran; exact's band is decided per layer from q and k, the row gives the first
layer's of the first timed step), band (the widest w of that step; n - 1 when
dense), keys per query (mean over heads; what block-diagonal attention
computes), seconds per step (wall, CPU), bytes per CPU second (windows x n over
the CPU time: the training throughput a config's length follows from), CPU
seconds of bias construction, peak
MiB, and the CPU time and peak against dense exact ALiBi and against exact
ALiBi as trained (banded where it pays) at that n.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import asdict, dataclass

import numpy as np
import torch

from .attention import Bias, lsh_keys_per_query
from .band import Banded
from .config import BENCH_POINTS, DENSE_EXACT, MATCHED, POSITION_EMBEDDED, BenchConfig
from .model import ByteTransformer, ModelShape
from .train import TrainConfig, deterministic, optimizer, train_step

COLUMNS = ["n", "variant", "s", "attention", "band", "keys_per_query", "seconds_per_step",
           "cpu_seconds_per_step", "bytes_per_cpu_second", "bias_cpu_seconds_per_step", "peak_mib", "step_vs_dense_exact",
           "step_vs_exact", "peak_vs_dense_exact"]
POINTS = BENCH_POINTS  # exact-dense (exact ALiBi on dense attention) first
PER_S = len(MATCHED)  # the last points are run at every s


@dataclass
class BenchSpec:
    """What a point's process needs (JSON-able), from a checked BenchConfig."""
    n: list[int]
    s: list[int]
    layers: int
    heads: int
    width: int
    sigmas: list[float]
    tokens: int  # batch 0: a step sees tokens // n windows of n
    batch: int  # windows per step (0: tokens // n)
    repeats: int
    threads: int
    variants: list[str]  # of POINTS, in any order (run in POINTS' order)

    @staticmethod
    def of(c: BenchConfig) -> BenchSpec:
        return BenchSpec(list(c.n), list(c.s), c.layers, c.heads, c.width, list(c.head_sigmas()), c.tokens,
                         c.batch, c.repeats, 1, list(c.variant))

    def windows(self, n: int) -> int:
        return self.batch if self.batch > 0 else self.tokens // n


def best_of(repeats: int, f) -> tuple[float, float]:
    """(wall, CPU) seconds of the repeat with the least CPU time."""
    best = (float("inf"), float("inf"))
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        f()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        best = min(best, (wall, cpu), key=lambda b: b[1])
    return best


def points(spec: BenchSpec):
    """(variant, s) of every point at one n, the dense exact reference first."""
    for v in POINTS[:-PER_S]:
        if v in spec.variants:
            yield v, 0
    for s in spec.s:
        for v in POINTS[-PER_S:]:
            if v in spec.variants:
                yield v, s


def make_bias(spec: BenchSpec, variant: str, s: int, n: int) -> Bias:
    name = "exact" if variant == DENSE_EXACT else variant
    return Bias(name, spec.sigmas, spec.layers, s=s, train_context=n, cost_draws=(0, 4))


def band_of(layer_bias, q: torch.Tensor, k: torch.Tensor, n: int) -> tuple[str, int]:
    """What a layer's bias runs as: ('banded', w) or ('dense', n - 1)."""
    resolved = layer_bias if isinstance(layer_bias, torch.Tensor) else layer_bias.resolve(q, k)
    return ("banded", resolved.band) if isinstance(resolved, Banded) else ("dense", n - 1)


def limit_memory() -> int:
    """Caps this process's address space at half the machine's memory; the cap in MiB."""
    half = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    resource.setrlimit(resource.RLIMIT_AS, (half, half))
    return half >> 20


def measure(spec: BenchSpec, variant: str, s: int, n: int) -> dict:
    """One point, in this process: its timings, attention path and peak memory."""
    deterministic(spec.threads)
    torch.manual_seed(0)
    batch = spec.windows(n)
    positions = "sinusoidal" if variant in POSITION_EMBEDDED else "none"
    cfg = TrainConfig(ModelShape(spec.layers, spec.heads, spec.width, positions), n, batch, 1, 1e-3, 0, 0.1, 1, 0)
    model = ByteTransformer(cfg.shape)
    opt = optimizer(model, cfg)
    tokens = torch.randint(0, 256, (batch, n + 1), generator=torch.Generator().manual_seed(0))
    bias = make_bias(spec, variant, s, n)
    form = bias.dense if variant == DENSE_EXACT else bias
    draw = [0]

    def biases():
        draw[0] += 1
        return [form(n, layer, draw[0]) for layer in range(spec.layers)]

    def step():
        train_step(model, opt, biases(), tokens[:, :-1], tokens[:, 1:])

    step()  # warm-up: allocations, the deterministic variants' cached bias
    with torch.no_grad():
        q, k, _ = model.blocks[0].attn.qkv_heads(model.blocks[0].ln1(model.embed(tokens[:, :-1])))
        attention, band = band_of(biases()[0], q, k, n)
    wall, cpu = best_of(spec.repeats, step)
    return {"attention": attention, "band": band, "wall": wall, "cpu": cpu,
            "bias_cpu": best_of(spec.repeats, biases)[1],
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def child(argument: str) -> None:
    """`python3 -m poslsh.lm.bench JSON`: one point, its result as JSON on stdout."""
    job = json.loads(argument)
    cap = limit_memory()
    try:
        result = measure(BenchSpec(**job["spec"]), job["variant"], job["s"], job["n"])
    except (MemoryError, RuntimeError) as e:  # torch reports a refused allocation as RuntimeError
        if "memory" not in str(e).lower() and not isinstance(e, MemoryError):
            raise
        result = {"over_mib": cap}
    print(json.dumps(result))


def run_point(spec: BenchSpec, variant: str, s: int, n: int) -> dict:
    job = json.dumps({"spec": asdict(spec), "variant": variant, "s": s, "n": n})
    done = subprocess.run([sys.executable, "-m", "poslsh.lm.bench", job], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"bench lm: the point n={n} {variant} s={s} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def keys_of(spec: BenchSpec, variant: str, s: int, n: int) -> float:
    bias = make_bias(spec, variant, s, n)
    lsh = lsh_keys_per_query(0, s, spec.sigmas, n, spec.layers, 0, 4) if variant == "lsh" else None
    return float(np.mean(bias.keys_per_query(n, lsh)))


def ratio(a, b) -> str:
    return f"{a / b:.4g}" if a is not None and b else ""


def row_of(n: int, variant: str, s: int, keys: float, r: dict, dense: dict, exact: dict, windows: int) -> list:
    if "over_mib" in r:
        return [n, variant, s or "", "", "", f"{keys:.6g}", "", "", "", "", f"over {r['over_mib']}", "", "", ""]
    return [n, variant, s or "", r["attention"], r["band"], f"{keys:.6g}", f"{r['wall']:.6g}",
            f"{r['cpu']:.6g}", f"{windows * n / r['cpu']:.6g}", f"{r['bias_cpu']:.6g}", f"{r['peak_mib']:.1f}",
            ratio(r["cpu"], dense.get("cpu")), ratio(r["cpu"], exact.get("cpu")),
            ratio(r["peak_mib"], dense.get("peak_mib"))]


def run(spec: BenchSpec | BenchConfig, progress=print) -> str:
    spec = BenchSpec.of(spec) if isinstance(spec, BenchConfig) else spec
    step = (f"{spec.batch} windows of n a step" if spec.batch > 0
            else f"{spec.tokens} tokens a step: tokens / n windows")
    progress(f"seconds per AdamW step and peak memory ({spec.layers} layers, {spec.heads} heads, width "
             f"{spec.width}, {step}), one thread, a fresh process per point, best of {spec.repeats}; "
             "banded attention where it pays, exact-dense the dense reference")
    lines = [",".join(COLUMNS)]
    for n in spec.n:
        dense, exact = {}, {}
        for variant, s in points(spec):
            r = run_point(spec, variant, s, n)
            dense = r if variant == DENSE_EXACT else dense
            exact = r if variant == "exact" else exact
            keys = keys_of(spec, variant, s, n)
            lines.append(",".join(map(str, row_of(n, variant, s, keys, r, dense, exact, spec.windows(n)))))
            what = f"n={n} {variant}{f' s={s}' if s else ''}"
            if "over_mib" in r:
                progress(f"{what}: needs more than {r['over_mib']} MiB, not run")
            else:
                progress(f"{what}: {r['attention']} (band {r['band']}), {1e3 * r['cpu']:.1f} CPU ms/step "
                         f"({spec.windows(n) * n / r['cpu']:.0f} bytes/CPU s, wall {1e3 * r['wall']:.1f} ms), bias {1e3 * r['bias_cpu']:.2f} CPU ms, "
                         f"peak {r['peak_mib']:.0f} MiB, {keys:.1f} keys/query")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    child(sys.argv[1])
