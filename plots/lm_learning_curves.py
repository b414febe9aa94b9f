#!/usr/bin/env python3
"""Language models, learning curves: validation loss at the training context
(a few batches, every curve-every steps) against the training step, one line
per trained model (mean over seeds, band: the seeds' range), training phase
only; the training loss averaged since the previous point dotted. From the
table itself (lm.csv), not its summary."""
import numpy as np

import plotlib as pl

NAMES = {"exact": "exact ALiBi", "nobias": "no positional bias", "fixed": "fixed grids", "window": "window",
         "sinusoidal": "sinusoidal positions"}


def label(variant, s):
    name = "positional LSH" if variant == "lsh" else NAMES.get(variant, variant)
    return name + (f", s = {s:g}" if np.isfinite(s) else "")


def main(argv=None):
    args = pl.parse_args(__doc__, "lm_learning_curves.png", argv)
    t = pl.load(args.csv, ["variant", "train_s", "seed", "phase", "step", "metric", "value"])
    pl.style()
    val = (t["metric"] == "curve_val_bpb") & (t["phase"] == "train")
    if not val.any():
        raise SystemExit("plot: the table has no learning curves (curve-every = 0)")
    # nan != nan: models are keyed by s with "no s" as -1
    models = sorted(set(zip(t["variant"][val], np.nan_to_num(t["train_s"][val], nan=-1).tolist())),
                    key=lambda m: (m[0] != "exact", m[0], m[1]))
    models = [(v, np.nan if s < 0 else s) for v, s in models]
    fig, ax = pl.plt.subplots(figsize=(6.0, 4.0))
    for (variant, s), color, ls in zip(models, pl.colors(len(models)), pl.LINESTYLES * 8):
        same_s = np.isnan(t["train_s"]) if np.isnan(s) else (t["train_s"] == s)
        m = val & (t["variant"] == variant) & same_s
        steps, mean = pl.grouped(t["step"][m], t["value"][m])
        _, lo = pl.grouped(t["step"][m], t["value"][m], np.min)
        _, hi = pl.grouped(t["step"][m], t["value"][m], np.max)
        ax.plot(steps[1:], mean[1:], ls, color=color, lw=1, label=label(variant, s))
        ax.fill_between(steps[1:], lo[1:], hi[1:], color=color, alpha=0.15, lw=0)
    ax.set_xlabel("training step")
    ax.set_ylabel("validation loss at n (bits/byte)")
    ax.set_title("Learning curves (mean over seeds; band: the seeds' range)")
    ax.legend(fontsize=5, loc="upper right", ncol=2)
    pl.save(fig, args.output,
            "Validation loss at the training context against the training step, one line per trained model "
            "(mean over seeds, band: range over seeds; the first point, at step 0, left out); tells slower "
            "optimisation (curves still falling apart) from a worse end point (curves flat apart); theory: the "
            "LSH bias equals ALiBi's in expectation, so a noisier but unbiased gradient predicts LSH curves "
            "that approach exact ALiBi's as s grows.")


if __name__ == "__main__":
    main()
