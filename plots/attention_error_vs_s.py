#!/usr/bin/env python3
"""Figure 4: attention output error max|T~ - T*| vs s, one panel per
(n, sigma): positional LSH (mean over trials, band min-max) with its
per-instance certificate (dotted) and a slope -1/2 reference (dashed); the
fixed-block baseline (independent of s, horizontal); the sliding window at
the same cost as LSH with s hashes (errors at rounding level are drawn at 1e-16)."""
import numpy as np

import plotlib as pl

FLOOR = 1e-16


def mean_by_s(t, sel, col):
    svals = np.unique(t["s"][sel])
    return svals, np.array([np.nanmean(t[col][sel & (t["s"] == s)]) for s in svals]), \
        np.array([np.nanmin(t[col][sel & (t["s"] == s)]) for s in svals]), \
        np.array([np.nanmax(t[col][sel & (t["s"] == s)]) for s in svals])


def main():
    args = pl.parse_args(__doc__, "attention_error_vs_s.png")
    t = pl.load(args.csv, ["n", "sigma", "s", "estimator", "max_error", "certificate"])
    pl.style()
    cells = sorted(set(zip(t["n"], t["sigma"])))
    cols = int(np.ceil(np.sqrt(len(cells))))
    rows = (len(cells) + cols - 1) // cols
    fig, axes = pl.plt.subplots(rows, cols, figsize=(3.6 * cols, 3.2 * rows), squeeze=False)
    for ax, (n, sigma) in zip(axes.flat, cells):
        cell = (t["n"] == n) & (t["sigma"] == sigma)
        lsh = cell & (t["estimator"] == "lsh")
        if lsh.any():
            s, mean, lo, hi = mean_by_s(t, lsh, "max_error")
            ax.plot(s, mean, "o-", ms=3, color="C0", label="positional LSH")
            ax.fill_between(s, lo, hi, color="C0", alpha=0.2, lw=0)
            _, cert, _, _ = mean_by_s(t, lsh, "certificate")
            ax.plot(s, cert, ":", color="C0", label="LSH certificate")
            ax.plot(s, mean[0] * np.sqrt(s[0] / s), "k--", lw=0.7, label="slope −1/2")
            xs = s
        else:
            xs = np.unique(t["s"][cell & (t["s"] > 0)])
        fixed = cell & (t["estimator"] == "fixed")
        if fixed.any() and len(xs):
            width = np.nanmean(t["width"][fixed]) if "width" in t else np.nan
            ax.hlines(np.nanmean(t["max_error"][fixed]), xs.min(), xs.max(), colors="C3",
                      label=f"fixed blocks (w={width:g})")
        window = cell & (t["estimator"] == "window") & (t["s"] > 0)
        if window.any():
            s, mean, _, _ = mean_by_s(t, window, "max_error")
            ax.plot(s, np.maximum(mean, FLOOR), "^-", ms=3, color="C2",
                    label="sliding window, equal cost")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"n = {int(n)}, σ = {sigma:g}")
        ax.set_xlabel("number of hashes s (window: same cost)")
        ax.set_ylabel(r"$\max |\tilde T - T^*|$ (output units)")
    for ax in list(axes.flat)[len(cells):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=6)
    pl.save(fig, args.output)


if __name__ == "__main__":
    main()
