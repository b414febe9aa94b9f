#!/usr/bin/env python3
"""Length extrapolation: positional-LSH attention error vs the context length n
at fixed s, one panel per sigma (and d, form, head when they vary), one colour
per s. Solid: the relative Frobenius error ||T~ - T*||_F / ||T*||_F (mean over
trials, min-max band), which the theory says is flat in n (row errors are
stationary; the check length[...] tests it), with a dotted flat reference
through each series' smallest n. Dashed: the largest error max|T~ - T*|, the
largest of n row errors, which grows like the row law's 1 - 1/n quantile
(reported, not tested; docs/MATH.md §7). A table with one n draws its points
and says that nothing can be extrapolated."""
import numpy as np

import plotlib as pl


def main(argv=None):
    args = pl.parse_args(__doc__, "attention_error_vs_n.png", argv)
    t = pl.load(args.csv, ["n", "sigma", "s", "trial", "estimator", "max_error", "rel_frobenius_error"])
    pl.style()
    lsh = t["estimator"] == "lsh"
    # Panel keys besides sigma when they vary (a head that only follows sigma is not one).
    extra = [c for c in ("d", "form", "head") if c in t and len(set(t[c][lsh])) > 1
             and (c != "head" or len(set(zip(t["sigma"][lsh], t[c][lsh]))) > len(set(t["sigma"][lsh])))]
    key = list(zip(t["sigma"], *[t[c] for c in extra]))
    cells = sorted(set(k for k, l in zip(key, lsh) if l))
    if not cells:
        raise SystemExit("plot: no lsh rows to draw")
    index = {k: i for i, k in enumerate(cells)}
    cell_of = np.array([index.get(k, -1) for k in key])
    ss = np.unique(t["s"][lsh & np.isfinite(t["s"])])
    palette = dict(zip(ss, pl.colors(len(ss), ordered=True)))
    one_n = len(np.unique(t["n"][lsh])) < 2
    cols = int(np.ceil(np.sqrt(len(cells))))
    rows = (len(cells) + cols - 1) // cols
    fig, axes = pl.plt.subplots(rows, cols, figsize=(3.8 * cols, 3.4 * rows), squeeze=False)
    for i, (ax, cell_key) in enumerate(zip(axes.flat, cells)):
        zeros = ref_drawn = drew_rel = drew_max = False
        for s in ss:
            sel = lsh & (cell_of == i) & (t["s"] == s)
            if not sel.any():
                continue
            rel = t["rel_frobenius_error"][sel]
            n, mean = pl.grouped(t["n"][sel], rel, np.mean)
            _, lo = pl.grouped(t["n"][sel], rel, np.min)
            _, hi = pl.grouped(t["n"][sel], rel, np.max)
            line, z = pl.plot_positive(ax, n, mean, "o-", color=palette[s], ms=3, label=f"s = {s:g}")
            zeros |= z
            drew_rel |= line is not None
            band = np.isfinite(lo) & np.isfinite(hi) & (lo > 0)
            if band.sum() >= 2:
                ax.fill_between(n, lo, hi, where=band, color=palette[s], alpha=0.15, lw=0)
            _, largest = pl.grouped(t["n"][sel], t["max_error"][sel], np.mean)
            # (An exact zero here is one in the solid series too: its triangle is drawn.)
            line, _ = pl.plot_positive(ax, n, largest, "s--", color=palette[s], ms=2.5, lw=0.9,
                                       label="_max", zeros=False)
            drew_max |= line is not None
            pos = np.isfinite(mean) & (mean > 0)
            if len(n) >= 2 and pos.any():
                n0, m0 = n[pos][0], mean[pos][0]
                ax.plot(n[n >= n0], np.full((n >= n0).sum(), m0), ":", color=palette[s], lw=0.9,
                        label="_ref")
                ref_drawn = True
        ax.set_xscale("log", base=2)
        if not any(len(ln.get_ydata()) for ln in ax.get_lines() if ln.get_gid() != "poslsh-zeros"):
            ax.set_ylim(1e-3, 1.0)  # every error exactly 0: only the triangles; a log axis needs limits
        ax.set_yscale("log")
        title = f"σ = {cell_key[0]:g}"
        for c, v in zip(extra, cell_key[1:]):
            title += f", {c} = {v:g}" if c in ("d", "head") else f", {v}"
        ax.set_title(title)
        ax.set_xlabel("context length n")
        ax.set_ylabel("attention output error")
        handles = ax.get_legend_handles_labels()[0]
        if drew_rel:
            handles.append(pl.style_key(r"$\|\tilde T - T^*\|_F / \|T^*\|_F$ (tested)", marker="o"))
        if drew_max:
            handles.append(pl.style_key(r"$\max |\tilde T - T^*|$ (reported)", marker="s", linestyle="--"))
        if ref_drawn:
            handles.append(pl.style_key("flat (theory: stationary rows)", linestyle=":"))
        if zeros:
            handles.append(pl.zero_key())
        ax.legend(handles=handles, fontsize=6, loc="best")
    for ax in list(axes.flat)[len(cells):]:
        ax.axis("off")
    pl.save(fig, args.output,
            "Length extrapolation: positional-LSH attention error vs the context length n at "
            "fixed s (colour), one panel per σ. Solid: relative Frobenius error ||T~ − T*||_F / "
            "||T*||_F, mean over trials with min–max band; theory: flat in n, since at fixed s "
            "every row's error has one law whatever n (dotted: flat through the smallest n; the "
            "check length[...] tests it). Dashed: max|T~ − T*|, the largest of n row errors, "
            "which grows like the row law's 1 − 1/n quantile (reported, not tested)"
            + ("; one n in the table, so nothing is extrapolated." if one_n else "."))


if __name__ == "__main__":
    main()
