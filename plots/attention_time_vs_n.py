#!/usr/bin/env python3
"""Figure 5: attention wall time vs n (log-log) for exact, positional-LSH and
sliding-window attention (poslsh bench attention), with fitted slopes."""
import numpy as np

import plotlib as pl


def main():
    args = pl.parse_args(__doc__, "attention_time_vs_n.png")
    t = pl.load(args.csv, ["n", "method", "seconds"])
    pl.style()
    fig, ax = pl.plt.subplots(figsize=(5, 3.8))
    for method, mk in [("exact", "o-"), ("lsh", "s-"), ("window", "^-")]:
        sel = t["method"] == method
        if not sel.any():
            continue
        ns = np.unique(t["n"][sel])
        sec = np.array([np.nanmedian(t["seconds"][sel & (t["n"] == n)]) for n in ns])
        ax.plot(ns, sec, mk, ms=3, label=f"{method}: slope {pl.loglog_slope(ns, sec):.2f}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("context length n (positions)")
    ax.set_ylabel("wall time (s)")
    ax.set_title("attention time vs n (float32, one run)")
    ax.legend()
    pl.save(fig, args.output)


if __name__ == "__main__":
    main()
