#!/usr/bin/env python3
"""Figure 1: spectral and max-norm error of M~ vs the number of hashes s
(log-log), one line per (n, sigma), mean over trials with a min-max band, a
dashed reference slope -1/2 and the theorem bound (dotted)."""
import numpy as np

import plotlib as pl


def main():
    args = pl.parse_args(__doc__, "convergence_error_vs_s.png")
    t = pl.load(args.csv, ["n", "sigma", "s", "spectral_error", "spectral_bound", "max_error", "max_bound"])
    pl.style()
    fig, axes = pl.plt.subplots(1, 2, figsize=(9, 3.8))
    cells = sorted(set(zip(t["n"], t["sigma"])))
    colors = pl.plt.cm.viridis(np.linspace(0, 0.9, max(len(cells), 1)))
    for ax, err, bound, title in [
        (axes[0], "spectral_error", "spectral_bound", r"spectral error $\|\tilde M - L^*\|_2$"),
        (axes[1], "max_error", "max_bound", r"max-norm error $\max_{ij}|\tilde M - L^*|$"),
    ]:
        for (n, sigma), color in zip(cells, colors):
            sel = (t["n"] == n) & (t["sigma"] == sigma)
            svals = np.unique(t["s"][sel])
            mean = np.array([np.nanmean(t[err][sel & (t["s"] == s)]) for s in svals])
            lo = np.array([np.nanmin(t[err][sel & (t["s"] == s)]) for s in svals])
            hi = np.array([np.nanmax(t[err][sel & (t["s"] == s)]) for s in svals])
            bnd = np.array([np.nanmean(t[bound][sel & (t["s"] == s)]) for s in svals])
            ax.plot(svals, mean, "o-", ms=2.5, color=color, label=f"n={int(n)}, σ={sigma:g}")
            ax.fill_between(svals, lo, hi, color=color, alpha=0.15, lw=0)
            ax.plot(svals, bnd, ":", color=color, lw=0.8)
        s_all = np.unique(t["s"])
        ref = np.nanmean(t[err][t["s"] == s_all[0]])
        ax.plot(s_all, ref * np.sqrt(s_all[0] / s_all), "k--", lw=1, label="slope −1/2")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("number of hashes s")
        ax.set_ylabel("error (dimensionless)")
        ax.set_title(title + "\nmean over trials, band min–max, dotted: bound")
    axes[1].legend(loc="upper right", ncol=1)
    pl.save(fig, args.output)


if __name__ == "__main__":
    main()
