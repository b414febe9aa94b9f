#!/usr/bin/env python3
"""Figure 2: normalised spectral error · sqrt(s) / sigma vs n (s >= 4, mean
over s and trials), one line per sigma, with the theory's sqrt(ln n) growth
as a dashed reference and the fitted exponent of ln n in the legend (only
when at least two n have positive values: with one n nothing is fitted and
the title says so)."""
import numpy as np

import plotlib as pl


def main(argv=None):
    args = pl.parse_args(__doc__, "convergence_constant_vs_n.png", argv)
    t = pl.load(args.csv, ["n", "sigma", "s", "spectral_error"])
    pl.style()
    fig, ax = pl.plt.subplots(figsize=(5, 3.8))
    rows = len(t["n"])
    form = t["form"] if "form" in t else np.full(rows, "")
    show_form = len(set(form)) > 1
    keep = t["s"] >= 4
    if keep.any():
        s_note = "s ≥ 4"
    else:  # small-s tables: use what there is, and say so
        keep = np.isfinite(t["s"])
        s_note = "s = " + ", ".join(f"{s:g}" for s in np.unique(t["s"][keep])) + " (no s ≥ 4)"
    norm = t["spectral_error"] * np.sqrt(t["s"]) / t["sigma"]
    series = sorted(set(zip(form[keep], t["sigma"][keep])))
    ns_all = np.unique(t["n"][keep])
    fitted = 0
    for (f, sigma), color in zip(series, pl.colors(len(series), ordered=True)):
        sel = keep & (form == f) & (t["sigma"] == sigma)
        ns, c = pl.grouped(t["n"][sel], norm[sel], np.mean)
        label = f"σ = {sigma:g}" + (f", {f}" if show_form else "")
        expo = pl.loglog_slope(np.log(ns), c) if np.all(ns > 1) else np.nan
        if np.isfinite(expo):
            label += f": ∝ (ln n)^{expo:.2f}"
            fitted += 1
        ax.plot(ns, c, "o-", ms=3, color=color, label=label)
    if len(ns_all) >= 2:
        first = pl.nanstat(np.mean, norm[keep & (t["n"] == ns_all[0])])
        if np.isfinite(first) and first > 0 and ns_all[0] > 1:
            ax.plot(ns_all, first * np.sqrt(np.log(ns_all) / np.log(ns_all[0])), "k--", lw=1,
                    label="∝ sqrt(ln n) (theory)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("context length n (positions)")
    ax.set_ylabel(r"$\Vert\tilde M - L^*\Vert_2 \cdot \sqrt{s} / \sigma$")
    title = f"normalised spectral error (mean over {s_note} and trials)"
    if len(ns_all) < 2:
        note = f"one n ({', '.join(f'{n:g}' for n in ns_all) or 'none'}): no growth exponent fitted"
    elif fitted < len(series):
        note = "no growth exponent where the errors are not positive"
    else:
        note = ""
    ax.set_title(title + ("\n" + note if note else ""))
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    pl.save(fig, args.output,
            f"Normalised spectral error ||M~ − L*||_2 · sqrt(s)/σ vs n (mean over {s_note} and "
            "trials), one line per σ with the fitted exponent of ln n; theory: bounded in s and "
            "growing at most like sqrt(ln n) in n (dashed reference, docs/MATH.md §4)"
            + (f"; {note}." if note else "."))


if __name__ == "__main__":
    main()
