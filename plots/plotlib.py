"""Shared helpers for the poslsh plot scripts: argument parsing, CSV loading
(numpy only, no pandas needed), a consistent publication style."""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def parse_args(description, default_png):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("csv", help="CSV table written by poslsh")
    p.add_argument("-o", "--output", default=default_png, help="PNG file to write")
    return p.parse_args()


def load(path, required):
    """Rows of the CSV as a dict of column -> numpy array (numbers where possible)."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"plot: cannot read {path}: {e}")
    if not rows:
        sys.exit(f"plot: {path} has no rows")
    missing = [c for c in required if c not in rows[0]]
    if missing:
        sys.exit(f"plot: {path} lacks columns {', '.join(missing)}")
    table = {}
    for col in rows[0]:
        values = [r[col] for r in rows]
        try:
            table[col] = np.array([float(v) if v != "" else np.nan for v in values])
        except ValueError:
            table[col] = np.array(values)
    return table


def style():
    plt.rcParams.update({
        "figure.dpi": 150, "savefig.dpi": 200, "font.size": 9, "axes.grid": True,
        "grid.alpha": 0.3, "legend.fontsize": 7, "axes.titlesize": 9,
    })


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path)
    print(f"wrote {path}")


def loglog_slope(x, y):
    ok = (x > 0) & (y > 0) & np.isfinite(y)
    if ok.sum() < 2:
        return np.nan
    return np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0]
