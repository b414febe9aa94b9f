"""Shared helpers for the poslsh plot scripts: argument parsing, CSV loading
(numpy only, no pandas needed), a consistent publication style, colours that
do not repeat, exact zeros on log axes, and saving.

Every script is run as `script.py CSV -o OUT.png` and writes, next to OUT.png:
  OUT.pdf, OUT.svg      the same figure as vector graphics (for papers),
  OUT.caption.txt       one line: what the figure shows and what theory predicts.
(OUT is the -o path without its .png suffix.) With the environment variable
POSLSH_PLOT_DUMP set (non-empty, not 0), it also writes OUT.plot.json: every
axes' titles, drawn lines and collections with their style (colour, marker,
linestyle), whether each is actually drawn, and every legend's entries. The
smoke test (tests/plots_smoke.py) checks figures through that file."""
import argparse
import csv
import json
import os
import sys
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import Collection  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

# Okabe & Ito's colour-blind-safe qualitative palette (black left out: it is
# the colour of references and style keys).
QUALITATIVE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442"]
MARKERS = ["o", "s", "^", "D", "P", "X", "*", "h"]
LINESTYLES = ["-", "--", "-.", ":"]
ZERO_MARKER = "v"  # exact zeros on a log axis: a triangle on the bottom edge
ZERO_LABEL = "exact (0)"


def parse_args(description, default_png, argv=None):
    p = argparse.ArgumentParser(
        description=description,
        epilog="Also writes OUT.pdf, OUT.svg and OUT.caption.txt next to the PNG "
               "(OUT: the -o path without .png).")
    p.add_argument("csv", help="CSV table written by poslsh")
    p.add_argument("-o", "--output", default=default_png, help="PNG file to write")
    return p.parse_args(argv)


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


def summary_path(csv_path):
    """The summary an experiment writes beside its table: x.csv -> x.summary.csv."""
    return csv_path[:-4] + ".summary.csv" if csv_path.endswith(".csv") else csv_path + ".summary.csv"


def plot_vs_exact(ax, x, t, sel, fmt_str, color, label):
    """An lm summary's paired difference to exact ALiBi (vs_exact_mean) against x over
    the rows sel, ordered by x, with its 95% interval (vs_exact_low/high) as bars."""
    order = np.argsort(x[sel])
    x, mean = x[sel][order], t["vs_exact_mean"][sel][order]
    bars = np.vstack([mean - t["vs_exact_low"][sel][order], t["vs_exact_high"][sel][order] - mean])
    ax.plot(x, mean, fmt_str, color=color, ms=4, label=label)
    ax.errorbar(x, mean, yerr=bars, fmt="none", ecolor=color, capsize=0)


def style():
    plt.rcParams.update({
        "figure.dpi": 150, "savefig.dpi": 200, "font.size": 9, "axes.grid": True,
        "grid.alpha": 0.3, "legend.fontsize": 7, "axes.titlesize": 9,
        "svg.hashsalt": "poslsh",  # reproducible SVG ids
        "pdf.fonttype": 42,  # TrueType fonts in PDF (editable, accepted by publishers)
    })


# ---------------------------------------------------------------- statistics


def nanstat(fn, values):
    """fn over the finite values (nan when there are none), without warnings."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return float(fn(v)) if v.size else np.nan


def grouped(x, y, fn=np.mean):
    """(unique finite x, fn of the finite y per x)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    xs = np.unique(x[np.isfinite(x)])
    return xs, np.array([nanstat(fn, y[x == v]) for v in xs])


def loglog_slope(x, y):
    """Least-squares slope of log y against log x over the positive finite
    points; nan when fewer than two distinct x remain."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if len(np.unique(x[ok])) < 2:
        return np.nan
    return np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0]


# ---------------------------------------------------------------- styles


def colors(k, ordered=False):
    """k distinct colours. ordered: a sequential map (viridis) for an ordered
    parameter such as n or sigma, as long as neighbours stay distinguishable
    (k <= 8); otherwise qualitative palettes, then a sampled colour wheel."""
    if k <= 0:
        return []
    if ordered and k <= 8:
        return [to_hex(c) for c in plt.cm.viridis(np.linspace(0.0, 0.85, k))]
    if k <= len(QUALITATIVE):
        return QUALITATIVE[:k]
    if k <= 10:
        return [to_hex(c) for c in plt.cm.tab10(np.arange(k))]
    if k <= 20:
        return [to_hex(c) for c in plt.cm.tab20(np.arange(k))]
    return [to_hex(c) for c in plt.cm.hsv(np.linspace(0, 1, k, endpoint=False))]


# ---------------------------------------------------------------- drawing


def plot_positive(ax, x, y, fmt_str="o-", color=None, label=None, zeros=True, zero_label=None, **kw):
    """Plot y against x on a log y axis: positive values as a line, exact zeros
    as ZERO_MARKER triangles on the bottom edge of the axes (never at a made-up
    floor; zeros=False leaves them out, e.g. for a bound that is zero only
    where the error is). When no value is positive the triangles carry the
    label (or zero_label, when given). Returns (line or None, True when zeros
    were drawn)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    pos = np.isfinite(y) & (y > 0)
    line = None
    if pos.any():
        (line,) = ax.plot(x[pos], y[pos], fmt_str, color=color, label=label, **kw)
    zero = np.isfinite(y) & (y == 0) & zeros
    if zero.any():
        if zero_label is None:
            zero_label = "_zeros" if line is not None or label is None else label
        zero_markers(ax, x[zero], color=color, label=zero_label)
    return line, bool(zero.any())


def zero_markers(ax, x, color="k", label="_zeros"):
    """Exact zeros at x: triangles on the bottom edge (x in data, y in axes
    units); the k-th zero series of a panel sits k steps higher, so that
    series with zeros at the same x stay visible."""
    k = sum(1 for ln in ax.get_lines() if ln.get_gid() == "poslsh-zeros")
    (line,) = ax.plot(x, np.full(len(x), 0.035 * k), ZERO_MARKER, ms=5, color=color, clip_on=False,
                      zorder=5, transform=ax.get_xaxis_transform(), label=label, gid="poslsh-zeros")
    return line


def has_zeros(ax):
    """Whether zero_markers drew on ax."""
    return any(ln.get_gid() == "poslsh-zeros" for ln in ax.get_lines())


def zero_key():
    """The legend entry for zero markers (a black style key)."""
    return Line2D([], [], linestyle="none", marker=ZERO_MARKER, ms=5, color="k", label=ZERO_LABEL)


def style_key(label, marker="none", linestyle="-"):
    """A black legend key for a style shared by several series (e.g. the dotted bounds)."""
    return Line2D([], [], marker=marker, linestyle=linestyle, color="k", label=label)


# ---------------------------------------------------------------- output


def outputs(png):
    """The files written for -o png: (png, pdf, svg, caption, dump)."""
    stem = png[:-4] if png.lower().endswith(".png") else png
    return png, stem + ".pdf", stem + ".svg", stem + ".caption.txt", stem + ".plot.json"


def save(fig, path, caption):
    """Write the figure as PNG (path), PDF and SVG, the one-line caption as
    .caption.txt, and (POSLSH_PLOT_DUMP) the .plot.json description."""
    png, pdf, svg, cap, dump = outputs(path)
    caption = " ".join(caption.split())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # tight_layout with figure legends
        fig.tight_layout()
    # Figure legends placed outside the axes stay in: the tight box, computed
    # once for the three formats (savefig's bbox_inches="tight" redraws per file).
    opts = {"bbox_inches": fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.1)}
    fig.savefig(png, format="png", **opts)
    fig.savefig(pdf, format="pdf", metadata={"CreationDate": None}, **opts)
    fig.savefig(svg, format="svg", metadata={"Date": None}, **opts)
    with open(cap, "w") as f:
        f.write(caption + "\n")
    if os.environ.get("POSLSH_PLOT_DUMP", "") not in ("", "0"):
        with open(dump, "w") as f:
            json.dump(describe(fig, caption), f, indent=1, ensure_ascii=False)
    plt.close(fig)
    print(f"wrote {png} (+ .pdf, .svg, .caption.txt)")
    print(f"caption: {caption}")


# ---------------------------------------------------------------- description (tests)


def _none(v):
    return v is None or (isinstance(v, str) and v.lower() in ("", " ", "none"))


def _style(artist):
    if isinstance(artist, Line2D):
        color, marker, ls = artist.get_color(), artist.get_marker(), artist.get_linestyle()
    elif isinstance(artist, Collection):
        fc, ec = artist.get_facecolor(), artist.get_edgecolor()
        color = fc[0] if len(fc) else (ec[0] if len(ec) else "none")
        marker, ls = None, "-"
    else:  # legend patches and the like
        color = artist.get_facecolor() if hasattr(artist, "get_facecolor") else "none"
        marker, ls = None, "-"
    try:
        color = to_hex(color, keep_alpha=False)
    except ValueError:
        color = "none"
    return {"color": color, "marker": "none" if _none(marker) else str(marker),
            "linestyle": "none" if _none(ls) else str(ls)}


def _line_drawn(ax, line):
    """Whether a Line2D puts ink on the canvas: a marker at a valid point, or a
    segment between two distinct valid points (nonpositive values on log axes
    are not valid: they would be clipped to an arbitrary floor)."""
    if not line.get_visible():
        return False
    x = np.asarray(line.get_xdata(), dtype=float)
    y = np.asarray(line.get_ydata(), dtype=float)
    tr = line.get_transform()
    x_data = tr in (ax.transData, ax.get_xaxis_transform())
    y_data = tr in (ax.transData, ax.get_yaxis_transform())
    ok = np.isfinite(x) & np.isfinite(y)
    if x_data and ax.get_xscale() == "log":
        ok &= x > 0
    if y_data and ax.get_yscale() == "log":
        ok &= y > 0
    st = _style(line)
    if st["marker"] != "none" and line.get_markersize() > 0 and ok.any():
        return True
    pts = set(zip(x[ok].tolist(), y[ok].tolist()))
    return st["linestyle"] != "none" and len(pts) >= 2


def _collection_drawn(coll):
    if not coll.get_visible():
        return False
    for p in coll.get_paths():
        v = p.vertices
        v = v[np.all(np.isfinite(v), axis=1)]
        if len(v) >= 2 and np.ptp(v, axis=0).max() > 0:
            return True
    return False


def _legend(leg):
    if leg is None:
        return None
    handles = getattr(leg, "legend_handles", None) or getattr(leg, "legendHandles", [])
    return [dict(text=t.get_text(), **_style(h)) for t, h in zip(leg.get_texts(), handles)]


def describe(fig, caption=""):
    """Titles, drawn artists with their styles and legends of a figure (JSON-able)."""
    axes = []
    for ax in fig.axes:
        lines = []
        for ln in ax.get_lines():
            tr = ln.get_transform()
            lines.append(dict(label=ln.get_label(), drawn=_line_drawn(ax, ln),
                              y_data=tr in (ax.transData, ax.get_yaxis_transform()),
                              y=[float(v) if np.isfinite(v) else None
                                 for v in np.asarray(ln.get_ydata(), dtype=float)],
                              **_style(ln)))
        colls = [dict(label=c.get_label(), kind=type(c).__name__, drawn=_collection_drawn(c),
                      **_style(c)) for c in ax.collections]
        axes.append(dict(visible=ax.axison, title=ax.get_title(), xlabel=ax.get_xlabel(),
                         ylabel=ax.get_ylabel(), xscale=ax.get_xscale(), yscale=ax.get_yscale(),
                         texts=[t.get_text() for t in ax.texts], lines=lines, collections=colls,
                         legend=_legend(ax.get_legend())))
    suptitle = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    return dict(caption=caption, suptitle=suptitle, axes=axes,
                figure_legends=[_legend(leg) for leg in fig.legends])
