#!/usr/bin/env python3
"""Figure 5: attention wall time vs n (log-log) for exact, certified band-exact,
positional-LSH and sliding-window attention (poslsh bench attention), median per n, with the
fitted log-log slope in the legend when at least two n have positive times."""
import numpy as np

import plotlib as pl

KNOWN = ["exact", "lsh", "window", "band"]  # fixed styles, so the figure reads the same in every report


def main(argv=None):
    args = pl.parse_args(__doc__, "attention_time_vs_n.png", argv)
    t = pl.load(args.csv, ["n", "method", "seconds"])
    pl.style()
    fig, ax = pl.plt.subplots(figsize=(5, 3.8))
    order = KNOWN + sorted(set(t["method"]) - set(KNOWN))
    palette = pl.colors(len(order))
    style = {m: (palette[i], pl.MARKERS[i % len(pl.MARKERS)]) for i, m in enumerate(order)}
    methods = [m for m in order if m in set(t["method"])]
    unfitted = []
    for method in methods:
        sel = t["method"] == method
        ns, sec = pl.grouped(t["n"][sel], t["seconds"][sel], np.median)
        slope = pl.loglog_slope(ns, sec)
        label = method + (f": slope {slope:.2f}" if np.isfinite(slope) else "")
        if not np.isfinite(slope):
            unfitted.append(method)
        color, marker = style[method]
        pl.plot_positive(ax, ns, sec, "-", color=color, marker=marker, ms=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("context length n (positions)")
    ax.set_ylabel("wall time (s)")
    ns_all = np.unique(t["n"])
    note = ""
    if len(ns_all) < 2:
        note = "one n: no slope fitted"
    elif unfitted:
        note = "no slope for " + ", ".join(unfitted) + " (fewer than two positive times)"
    ax.set_title("attention time vs n (float32, median per n)" + ("\n" + note if note else ""))
    handles = ax.get_legend_handles_labels()[0]
    if pl.has_zeros(ax):
        handles.append(pl.zero_key())
    if handles:
        ax.legend(handles=handles)
    band = "band" in methods
    pl.save(fig, args.output,
            "Wall time of exact, " + ("certified band-exact, " if band else "") +
            "positional-LSH and sliding-window ALiBi attention vs n (log-log, "
            "median per n) with fitted log-log slopes; theory: exact attention costs O(n² d), "
            + ("band-exact O(n w d) with w ≈ 31σ on the benchmark's Gaussian inputs, " if band else "") +
            "LSH O(n d s b_max) and the window O(n w d), i.e. slope 2 for exact and 1 for the "
            "others at fixed d, s, σ and w (docs/MATH.md §7, §8)" + (f"; {note}." if note else "."))


if __name__ == "__main__":
    main()
