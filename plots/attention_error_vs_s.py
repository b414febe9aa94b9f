#!/usr/bin/env python3
"""Figure 4: attention output error max|T~ - T*| vs s per estimator (lsh,
fixed, window), mean over trials, with the per-instance certificate (dotted)
and a dashed slope -1/2 reference."""
import numpy as np

import plotlib as pl


def main():
    args = pl.parse_args(__doc__, "attention_error_vs_s.png")
    t = pl.load(args.csv, ["n", "sigma", "s", "estimator", "max_error", "certificate"])
    pl.style()
    fig, ax = pl.plt.subplots(figsize=(5.5, 4))
    cells = sorted(set(zip(t["n"], t["sigma"])))
    markers = {"lsh": "o-", "fixed": "s-", "window": "^-"}
    for ci, (n, sigma) in enumerate(cells):
        for est in ["lsh", "fixed", "window"]:
            sel = (t["n"] == n) & (t["sigma"] == sigma) & (t["estimator"] == est)
            if not sel.any():
                continue
            svals = np.unique(t["s"][sel])
            err = np.array([np.nanmean(t["max_error"][sel & (t["s"] == s)]) for s in svals])
            cert = np.array([np.nanmean(t["certificate"][sel & (t["s"] == s)]) for s in svals])
            line, = ax.plot(svals, err, markers[est], ms=3, lw=1,
                            label=f"{est}, n={int(n)}, σ={sigma:g}")
            if est == "lsh":
                ax.plot(svals, cert, ":", color=line.get_color(), lw=0.8)
                ax.plot(svals, err[0] * np.sqrt(svals[0] / svals), "k--", lw=0.6)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("number of hashes s")
    ax.set_ylabel(r"$\max |\tilde T - T^*|$ (output units)")
    ax.set_title("attention output error (dotted: certificate, dashed: slope −1/2)")
    ax.legend(fontsize=6)
    pl.save(fig, args.output)


if __name__ == "__main__":
    main()
