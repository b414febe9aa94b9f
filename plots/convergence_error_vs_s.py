#!/usr/bin/env python3
"""Figure 1: spectral (top row) and max-norm (bottom row) error of M~ vs the
number of hashes s (log-log), one column per sigma, one colour per n: mean
over trials with a min-max band, the high-probability bound of docs/MATH.md
(dotted, same colour) and a slope -1/2 reference (dashed). Exact zeros are
triangles on the bottom edge."""
import numpy as np

import plotlib as pl

KINDS = [("spectral_error", "spectral_bound", "spectral", r"$\Vert\tilde M - L^*\Vert_2$"),
         ("max_error", "max_bound", "max-norm", r"$\max_{ij}|\tilde M - L^*|$")]


def main(argv=None):
    args = pl.parse_args(__doc__, "convergence_error_vs_s.png", argv)
    t = pl.load(args.csv, ["n", "sigma", "s", "spectral_error", "spectral_bound", "max_error", "max_bound"])
    pl.style()
    rows = len(t["n"])
    form = t["form"] if "form" in t else np.full(rows, "")
    show_form = len(set(form)) > 1
    panels = sorted(set(zip(form, t["sigma"])), key=lambda p: (p[0], p[1]))
    ns = np.unique(t["n"])
    color = dict(zip(ns, pl.colors(len(ns), ordered=True)))

    ncol = len(panels)
    fig, axes = pl.plt.subplots(2, ncol, figsize=(2.9 * ncol + 0.6, 5.4), squeeze=False)
    keys, any_bound, any_zero = {}, False, False
    positive = {n: bool(np.any((t["spectral_error"][t["n"] == n] > 0) | (t["max_error"][t["n"] == n] > 0)))
                for n in ns}
    bound_marker = "_" if len(np.unique(t["s"])) == 1 else "none"  # one s: a dotted line has no length
    for row, (err, bound, kind, sym) in enumerate(KINDS):
        for col, (f, sigma) in enumerate(panels):
            ax = axes[row, col]
            panel = (form == f) & (t["sigma"] == sigma)
            first_means = []
            for n in ns:
                sel = panel & (t["n"] == n)
                if not sel.any():
                    continue
                svals, mean = pl.grouped(t["s"][sel], t[err][sel], np.mean)
                _, lo = pl.grouped(t["s"][sel], t[err][sel], np.min)
                _, hi = pl.grouped(t["s"][sel], t[err][sel], np.max)
                _, bnd = pl.grouped(t["s"][sel], t[bound][sel], np.mean)
                label = f"n = {int(n)}"
                # Zeros carry the series' label only where the series has no line anywhere
                # (the figure legend shows one look per label).
                line, zero = pl.plot_positive(ax, svals, mean, "o-", color=color[n], ms=3, lw=1, label=label,
                                              zero_label="_zeros" if positive[n] else label)
                any_zero |= zero
                for artist in ax.get_lines():
                    if artist.get_label() == label:
                        keys.setdefault(label, artist)
                band = np.isfinite(lo) & np.isfinite(hi) & (lo > 0)
                if band.sum() >= 2:
                    ax.fill_between(svals, lo, hi, where=band, color=color[n], alpha=0.15, lw=0)
                if np.isfinite(bnd).any():
                    ax.plot(svals, bnd, ":", color=color[n], lw=0.9, marker=bound_marker)
                    any_bound = True
                if len(svals) and np.isfinite(mean[0]) and mean[0] > 0:
                    first_means.append((svals[0], mean[0]))
            s_all = np.unique(t["s"][panel])
            if len(s_all) >= 2 and first_means:
                s0 = min(s for s, _ in first_means)
                anchor = np.exp(np.mean([np.log(m) for s, m in first_means if s == s0]))
                xs = s_all[s_all >= s0]
                (ref,) = ax.plot(xs, anchor * np.sqrt(s0 / xs), "k--", lw=0.8, label="slope −1/2")
                keys.setdefault(ref.get_label(), ref)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"{kind} error {sym}\nσ = {sigma:g}" + (f", {f}" if show_form else ""))
            if row == 1:
                ax.set_xlabel("number of hashes s")
            if col == 0:
                ax.set_ylabel("error (dimensionless)")
    handles = [keys[f"n = {int(n)}"] for n in ns if f"n = {int(n)}" in keys]
    if any_bound:
        handles.append(pl.style_key("bound (docs/MATH.md §4, §5)", bound_marker, ":"))
    if "slope −1/2" in keys:
        handles.append(keys["slope −1/2"])
    if any_zero:
        handles.append(pl.zero_key())
    fig.suptitle("error of the mean of s masks vs s: mean over trials, band min–max", fontsize=9)
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7)
    one_s = len(np.unique(t["s"])) < 2
    pl.save(fig, args.output,
            "Spectral (top) and max-norm (bottom) error of the mean M~ of s positional-LSH masks "
            "against the ALiBi matrix L* vs the number of hashes s, one column per σ, colour = n, "
            "mean over trials with min–max band; theory: O(1/sqrt(s)) (dashed slope −1/2), below "
            "the high-probability bounds of docs/MATH.md §4 (spectral) and §5 (max-norm), dotted"
            + ("; one s in the table, so no slope is drawn." if one_s else "."))


if __name__ == "__main__":
    main()
