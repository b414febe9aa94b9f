"""`poslsh lm` as the sweep runner sees it: the table's columns, the cells of a
configuration (one training each) and a cell's rows.

The runner (src/runner/external_experiment.h) owns what every experiment
shares: threads, shards, --resume, merge, progress and provenance. It asks
this module, through `python3 -m poslsh.lm`, for the columns and cells of the
options the caller gave (`describe`) and for cell K's rows (`cell_rows`);
the rows are values (None: empty, int, float, str), which the runner writes
as every table writes numbers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from . import corpus as corpus_module
from .config import MATCHED, POSITION_EMBEDDED, LmConfig

COLUMNS = ["variant", "train_s", "seed", "phase", "steps", "eval", "eval_s", "step", "pos_lo", "pos_hi",
           "trial", "layer", "head", "sigma", "context", "metric", "value", "stderr", "count", "margin",
           "seconds", "step_cpu_seconds"]
TIMING_COLUMNS = ["seconds", "step_cpu_seconds"]


def fine_tunes(variant: str) -> bool:
    """nobias is the base of its own fine-tunes; a position-embedded model cannot start
    from an ALiBi base."""
    return variant != "nobias" and variant not in POSITION_EMBEDDED


def finetune_phase(base: str) -> str:
    return "finetune" if base == "exact" else "finetune-" + base


@dataclass(frozen=True)
class Training:
    """One cell. phase "train": from scratch; "finetune"/"finetune-B": from the model of
    variant `base` of the same seed; "baseline": the n-gram baselines (variant "ngram")."""
    variant: str
    s: int  # lsh: hashes; fixed, window: the lsh cost they match; 0 otherwise
    seed: int
    phase: str = "train"
    base: str = ""

    def with_s(self, sep: str) -> str:
        return f"{sep}s{'=' if sep == ' ' else ''}{self.s}" if self.variant in MATCHED else ""

    def prefix(self, sep: str) -> str:
        """"" (train), "finetune_" (from exact), "finetune_from_nobias_" (from nobias)."""
        if self.phase in ("train", "baseline"):
            return ""
        return "finetune" + sep if self.base == "exact" else f"finetune{sep}from{sep}{self.base}{sep}"

    def label(self) -> str:
        if self.phase == "baseline":
            return "byte n-gram baselines"
        return f"{self.prefix(' ')}{self.variant}{self.with_s(' ')} seed={self.seed}"

    def file_stem(self) -> str:
        if self.phase == "baseline":
            return self.variant
        return f"{self.prefix('_')}{self.variant}{self.with_s('_')}_seed{self.seed}"


def trainings(c: LmConfig) -> list[Training]:
    """Seed by seed: a seed's trainings, then its fine-tunes; the n-gram baselines last. A
    --shard of whole seeds then holds the exact models its fine-tunes start from."""
    out = []
    fine_tuned = c.finetune_steps > 0 and "exact" in c.variant
    for seed in range(c.seed, c.seed + c.seeds):
        for v in c.variant:
            out += [Training(v, s, seed) for s in (c.s if v in MATCHED else (0,))]
        if not fine_tuned:
            continue
        for base in c.finetune_from:
            for v in filter(fine_tunes, c.variant):
                out += [Training(v, s, seed, finetune_phase(base), base)
                        for s in (c.s if v in MATCHED else (0,))]
    if c.ngram_order >= 0:
        out.append(Training("ngram", 0, c.seed, "baseline"))
    return out


def cost(c: LmConfig, t: Training) -> float:
    """The exact models and the bases start first (a fine-tune waits for its base), then the
    other trainings, then the fine-tunes."""
    if t.phase == "baseline":
        return float(c.steps)
    if t.phase != "train":
        return float(c.finetune_steps)
    return c.steps * (2.0 if t.variant == "exact" or t.variant in c.finetune_from else 1.0) + 1.0


def number(x: float) -> str:
    """A double as the CLI's notes print one (shortest, no trailing '.0')."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def note(c: LmConfig) -> str:
    """Provenance lines, part of the fingerprint: --resume never mixes two texts."""
    text = corpus_module.load(c.corpus)
    sigmas = c.head_sigmas()
    blocks = ", ".join(format((c.context - 1) / s + 1, ".3g") for s in sigmas)
    return (f"# corpus {c.corpus} sha256 {text.sha256} ({len(text.train)} / {len(text.validation)} / "
            f"{len(text.test)} bytes train / validation / test)\n"
            f"# sigmas {', '.join(number(s) for s in sigmas)} (expected blocks per context "
            f"(n - 1)/sigma + 1: {blocks})\n")


def describe(c: LmConfig) -> dict:
    cells = trainings(c)
    return {"columns": COLUMNS, "timing_columns": TIMING_COLUMNS, "seed": c.seed, "note": note(c),
            "cells": [{"label": t.label(), "cost": cost(c, t)} for t in cells]}


def beside(table: str, suffix: str) -> Path:
    p = Path(table)
    return p.parent / (p.stem + suffix)


def cell_spec(c: LmConfig, t: Training, table: str, work: str, progress: bool):
    """The cell's CellSpec: checkpoints in the runner's work folder, the exact models' own
    Q, K, V in <table stem>_qkv/seed<S>/ (`poslsh attention --qkv` reads them)."""
    from .cell import CellSpec  # torch is imported only for a cell
    base = Training(t.base or "exact", 0, t.seed)
    exports = t.variant == "exact" and t.phase == "train"
    return CellSpec(
        corpus=c.corpus, variant=t.variant, s=t.s, seed=t.seed,
        phase=t.phase if t.phase in ("train", "baseline") else "finetune", base=t.base or "exact",
        draws=c.draws, layers=c.layers, heads=c.heads, width=c.width, sigmas=list(c.head_sigmas()),
        context=c.context, batch=c.batch, steps=c.steps, lr=c.lr, warmup=c.warmup,
        weight_decay=c.weight_decay, checkpoint_every=c.checkpoint_every, finetune_steps=c.finetune_steps,
        curve_every=c.curve_every, curve_batches=c.curve_batches, eval_lengths=list(c.eval_lengths),
        eval_batches=c.eval_batches, eval_batch=c.eval_batch, swap_s=list(c.swap_s),
        swap_trials=c.swap_trials, context_probe=list(c.context_probe), ngram_order=max(c.ngram_order, 0),
        checkpoint=str(Path(work) / (t.file_stem() + ".pt")),
        base_checkpoint=str(Path(work) / (base.file_stem() + ".pt")) if t.phase != "train" else "",
        qkv_dir=str(beside(table, "_qkv") / f"seed{t.seed}") if exports else "",
        keep_dir=c.keep_models, file_stem=t.file_stem(), threads=1, progress=progress)


def finite_or_text(x):
    """JSON has no NaN: a non-finite float travels as the text the CLI prints for it."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def cell_rows(c: LmConfig, k: int, table: str, work: str, progress: bool) -> list[list]:
    """Cell k's rows: the cell's own columns (variant, train_s, seed, phase, steps), the
    measurements (rows.py), the run's margin and the timings. A baseline row leads with its
    own variant (ngram-K) and has no s, seed or steps."""
    from .cell import run
    t = trainings(c)[k]
    measured, seconds, per_step = run(cell_spec(c, t, table, work, progress))
    rows, baseline = [], t.phase == "baseline"
    for m in measured:
        lead = [m[0] if baseline else t.variant, t.s if t.variant in MATCHED else None,
                None if baseline else t.seed, t.phase,
                None if baseline else (c.steps if t.phase == "train" else c.finetune_steps)]
        values = list(m[1:] if baseline else m)
        rows.append([finite_or_text(v) for v in lead + values + [c.margin, seconds, per_step]])
    return rows
