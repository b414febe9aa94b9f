#!/usr/bin/env python3
"""Language models, the cost-quality frontier: validation loss at the training
context n minus exact ALiBi's (same seed), against keys per query (summed over
hashes or grids; per head, averaged over heads). One line per variant through
its s values: positional LSH (keys measured on its own training draws), fixed
grids and the causal window, each matched to LSH's cost at the same s; exact
ALiBi (the zero line) and no bias at (n + 1) / 2 keys. Bars: 95% Student-t
intervals of the paired differences over the seeds (lm.summary.csv)."""
import numpy as np

import plotlib as pl

CURVES = [("lsh", "o-", pl.QUALITATIVE[0], "positional LSH"),
          ("fixed", "s-", pl.QUALITATIVE[3], "fixed grids, equal cost"),
          ("window", "^-", pl.QUALITATIVE[4], "window, equal cost")]


def model_rows(t, n, metric):
    return ((t["metric"] == metric) & (t["context"] == n) & (t["phase"] == "train") & (t["eval"] == "self")
            & np.isnan(t["step"]) & np.isnan(t["head"]) & np.isnan(t["pos_lo"]))


def keys_of(t, n, variant, s):
    sel = model_rows(t, n, "keys_per_query") & (t["variant"] == variant)
    sel &= np.isnan(t["train_s"]) if np.isnan(s) else (t["train_s"] == s)
    return t["mean"][sel][0] if sel.any() else np.nan


def main(argv=None):
    args = pl.parse_args(__doc__, "lm_frontier.png", argv)
    t = pl.load(pl.summary_path(args.csv), ["variant", "train_s", "phase", "eval", "step", "pos_lo", "head",
                                            "context", "metric", "mean", "vs_exact_mean", "vs_exact_low",
                                            "vs_exact_high"])
    pl.style()
    n = np.nanmin(t["context"][t["metric"] == "train_bpb"])
    loss = model_rows(t, n, "val_bpb")
    fig, ax = pl.plt.subplots(figsize=(5.6, 3.8))
    ax.axhline(0, color="k", lw=1, label="exact ALiBi (same seed)")
    for variant, fmt, color, label in CURVES:
        sel = loss & (t["variant"] == variant)
        if not sel.any():
            continue
        x = np.array([keys_of(t, n, variant, s) for s in t["train_s"]])
        pl.plot_vs_exact(ax, x, t, sel, fmt, color, label)
        for xi, yi, s in zip(x[sel], t["vs_exact_mean"][sel], t["train_s"][sel]):
            ax.annotate(f"s={s:g}", (xi, yi), fontsize=5, color=color, xytext=(3, 3), textcoords="offset points")
    sel = loss & (t["variant"] == "nobias")
    if sel.any():
        pl.plot_vs_exact(ax, np.full(len(t["mean"]), (n + 1) / 2), t, sel, "D", pl.QUALITATIVE[1],
                         "no positional bias")
    ax.axvline((n + 1) / 2, color="k", lw=0.6, ls=":", label="exact attention's keys, (n + 1)/2")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("keys per query (summed over hashes; mean over heads)")
    ax.set_ylabel(f"loss − exact ALiBi at n = {n:g} (bits/byte)")
    ax.set_title("Language models: loss against cost")
    ax.legend(fontsize=6, loc="best")
    pl.save(fig, args.output,
            f"Validation loss at n = {n:g} minus exact ALiBi's (same seed) against keys per query, the cost "
            "of block-diagonal attention, for positional LSH at each s and the fixed grids and causal window "
            "matched to its cost at the same s (95% intervals over seeds of the paired differences); theory "
            "(MATH §8): at equal cost a window's truncation error is about e^(-s), LSH's falls like "
            "s^(-1/2), so the window should lie below LSH at every cost.")


if __name__ == "__main__":
    main()
