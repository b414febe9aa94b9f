#!/usr/bin/env python3
"""Figure 2: normalised spectral error · sqrt(s) / sigma vs n (s >= 4, mean
over s and trials), one line per sigma, with the theory's sqrt(ln n) growth
as a dashed reference and the fitted exponent of ln n in the legend."""
import numpy as np

import plotlib as pl


def main():
    args = pl.parse_args(__doc__, "convergence_constant_vs_n.png")
    t = pl.load(args.csv, ["n", "sigma", "s", "spectral_error"])
    pl.style()
    fig, ax = pl.plt.subplots(figsize=(5, 3.8))
    keep = t["s"] >= 4
    norm = t["spectral_error"] * np.sqrt(t["s"]) / t["sigma"]
    for sigma in sorted(set(t["sigma"][keep])):
        ns = np.unique(t["n"][keep & (t["sigma"] == sigma)])
        c = np.array([np.nanmean(norm[keep & (t["sigma"] == sigma) & (t["n"] == n)]) for n in ns])
        expo = pl.loglog_slope(np.log(ns), c) if len(ns) >= 2 else np.nan
        ax.plot(ns, c, "o-", ms=3, label=f"σ={sigma:g}: ∝ (ln n)^{expo:.2f}")
    ns = np.unique(t["n"])
    if len(ns):
        first = np.nanmean(norm[keep & (t["n"] == ns[0])])
        ax.plot(ns, first * np.sqrt(np.log(ns) / np.log(ns[0])), "k--", lw=1, label="∝ sqrt(ln n)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("context length n (positions)")
    ax.set_ylabel(r"$\|\tilde M - L^*\|_2 \cdot \sqrt{s} / \sigma$")
    ax.set_title("normalised spectral error (mean over s ≥ 4 and trials)")
    ax.legend()
    pl.save(fig, args.output)


if __name__ == "__main__":
    main()
