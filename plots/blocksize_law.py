#!/usr/bin/env python3
"""Figure 3: the largest block b_max. Left: empirical CDF of b_max against the
exact law P(b_max <= b) = F(b)^s (F the Gamma(2, sigma) CDF) for a few cells.
Right: mean b_max / (sigma ln ln n) across n, one line per (sigma, sample rule)."""
import numpy as np

import plotlib as pl


def gamma2_cdf(b, sigma):
    x = np.asarray(b, dtype=float) / sigma
    return -np.expm1(-x) - x * np.exp(-x)


def main():
    args = pl.parse_args(__doc__, "blocksize_law.png")
    t = pl.load(args.csv, ["n", "sigma", "s", "trial", "b_max"])
    pl.style()
    fig, (left, right) = pl.plt.subplots(1, 2, figsize=(9, 3.8))

    cells = sorted(set(zip(t["n"], t["sigma"], t["s"])), key=lambda c: (-c[0], c[1], c[2]))
    # A few cells with large n (where the law holds) and different sigma / s.
    shown, seen = [], set()
    for n, sigma, s in cells:
        if (sigma, s) in seen or np.sum((t["n"] == n) & (t["sigma"] == sigma) & (t["s"] == s)) < 50:
            continue
        seen.add((sigma, s))
        shown.append((n, sigma, s))
        if len(shown) == 4:
            break
    colors = pl.plt.cm.tab10(np.arange(len(shown)))
    for (n, sigma, s), color in zip(shown, colors):
        b = np.sort(t["b_max"][(t["n"] == n) & (t["sigma"] == sigma) & (t["s"] == s)])
        emp = np.arange(1, len(b) + 1) / len(b)
        left.step(b / sigma, emp, where="post", color=color, lw=1,
                  label=f"n=2^{int(round(np.log2(n)))}, σ={sigma:g}, s={int(s)}")
        grid = np.arange(max(1, int(b.min()) - 2), int(b.max()) + 3)
        left.plot(grid / sigma, gamma2_cdf(grid, sigma) ** s, "--", color=color, lw=0.8)
    left.set_xlabel("b / σ (largest block in units of σ)")
    left.set_ylabel("P(b_max ≤ b)")
    left.set_title("empirical CDF (steps) vs exact law F(b)^s (dashed)")
    left.legend(loc="lower right")

    rule = t["s_log_c"] if "s_log_c" in t else None
    groups = sorted(set(zip(t["sigma"], rule if rule is not None else t["s"])))
    for sigma, r in groups:
        sel = (t["sigma"] == sigma) & ((rule if rule is not None else t["s"]) == r)
        if rule is not None and not np.isfinite(r):
            continue
        ns = np.unique(t["n"][sel])
        ns = ns[ns >= 16]
        ratio = [np.mean(t["b_max"][sel & (t["n"] == n)]) / (sigma * np.log(np.log(n))) for n in ns]
        label = f"σ={sigma:g}, " + (f"s=⌈{r:g} ln n⌉" if rule is not None else f"s={int(r)}")
        right.plot(ns, ratio, "o-", ms=2.5, lw=0.8, label=label)
    right.set_xscale("log", base=2)
    right.set_xlabel("context length n (positions)")
    right.set_ylabel("mean b_max / (σ ln ln n)")
    right.set_title("largest block relative to σ ln ln n")
    right.legend(ncol=2, fontsize=5)
    pl.save(fig, args.output)


if __name__ == "__main__":
    main()
