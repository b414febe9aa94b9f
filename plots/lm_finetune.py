#!/usr/bin/env python3
"""Language models, fine-tune: each base model (exact ALiBi; with
--finetune-from nobias also the model trained without positional bias)
continued for a few steps with positional LSH at each s, the paper's fixed
blocks, the fixed grids and window of its cost, and exact ALiBi (the control),
on the same batches. Validation loss at the training context against the
fine-tune step (step 0: the swap-in value), one row of panels per base, mean
over seeds, band: the seeds' range (from lm.csv)."""
import numpy as np

import plotlib as pl

NAMES = {"lsh": "positional LSH", "fixed-block": "fixed blocks (one grid)", "fixed": "fixed grids",
         "window": "window"}
# Fine-tune phases in lm.csv and the base model each starts from.
BASES = {"finetune": "exact ALiBi", "finetune-nobias": "no positional bias"}


def draw_variant(ax, t, val, variant):
    """One panel: a variant's curves at each s (band: the seeds' range) and the control's."""
    sel = val & (t["variant"] == variant)
    s_values = np.unique(t["train_s"][sel])
    for s, color in zip(s_values, pl.colors(len(s_values), ordered=True)):
        m = sel & ((t["train_s"] == s) | (np.isnan(t["train_s"]) & np.isnan(s)))
        steps, mean = pl.grouped(t["step"][m], t["value"][m])
        _, lo = pl.grouped(t["step"][m], t["value"][m], np.min)
        _, hi = pl.grouped(t["step"][m], t["value"][m], np.max)
        ax.plot(steps, mean, "o-", ms=2, color=color, lw=1, label=f"s = {s:g}" if np.isfinite(s) else variant)
        ax.fill_between(steps, lo, hi, color=color, alpha=0.15, lw=0)
    control = val & (t["variant"] == "exact")
    if control.any():
        steps, mean = pl.grouped(t["step"][control], t["value"][control])
        ax.plot(steps, mean, "k--", lw=1, label="exact ALiBi (control)")
    ax.set_xlabel("fine-tune step")
    ax.legend(fontsize=5, loc="upper right")


def main(argv=None):
    args = pl.parse_args(__doc__, "lm_finetune.png", argv)
    t = pl.load(args.csv, ["variant", "train_s", "seed", "phase", "step", "metric", "value"])
    pl.style()
    curves = t["metric"] == "curve_val_bpb"
    bases = [b for b in BASES if (curves & (t["phase"] == b)).any()]
    if not bases:
        raise SystemExit("plot: the table has no fine-tune curves (finetune-steps = 0 or curve-every = 0)")
    tuned = curves & np.isin(t["phase"], bases)
    variants = [v for v in NAMES if (tuned & (t["variant"] == v)).any()]
    cols = max(1, len(variants))
    fig, axes = pl.plt.subplots(len(bases), cols, figsize=(3.4 * cols, 3.4 * len(bases)),
                                sharey=True, squeeze=False)
    for row, base in zip(axes, bases):
        val = curves & (t["phase"] == base)
        for ax, variant in zip(row, variants):
            draw_variant(ax, t, val, variant)
            ax.set_title(f"from {BASES[base]}, fine-tuned with {NAMES[variant]}", fontsize=7)
        row[0].set_ylabel("validation loss at n (bits/byte)")
    pl.save(fig, args.output,
            "Validation loss at the training context of base models (one row per base: exact ALiBi, and "
            "no positional bias where the run fine-tunes from it) fine-tuned with positional LSH, the "
            "paper's fixed blocks, equal-cost fixed grids and equal-cost windows at each s (mean over "
            "seeds, band: range), against the fine-tune step; step 0 is the swap-in loss, the dashed "
            "line the exact-ALiBi control from the same base on the same batches; theory: the LSH bias is unbiased for ALiBi's with error shrinking like "
            "1/sqrt(s), so its swap-in loss and the loss left after fine-tuning should fall toward the control "
            "as s grows, while fixed grids converge to a different (triangular) bias; the paper reports fine-tuning with positional LSH approaching "
            "exact ALiBi as s grows and beating fixed blocks.")


if __name__ == "__main__":
    main()
