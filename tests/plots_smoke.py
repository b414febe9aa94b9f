#!/usr/bin/env python3
"""Renders every plot script on small synthetic tables of the experiments'
schemas, normal ones and edge cases (one n, one sigma, one s, all-zero
errors, few trials, missing optional columns), and checks each figure:

- the script exits 0 and writes OUT.png, OUT.pdf, OUT.svg and a one-line
  OUT.caption.txt (stating what theory predicts) next to each other;
- no 'nan' / 'inf' in any title, label, legend or caption;
- every visible panel draws something;
- no two lines of a panel share (colour, marker, linestyle), and labelled
  series that share marker and linestyle have colours far enough apart to be
  told apart (CIELAB distance >= 15);
- every legend entry stands for an artist that is actually drawn (same label
  and style), or is a black style key whose marker and line style a drawn line
  uses; no two entries of a legend look the same; a figure-level legend means
  the same thing in every panel;
- nothing is drawn at a made-up floor on a log axis (values <= 1e-15): exact
  zeros appear as markers with an "exact (0)" legend entry;
- case-specific: each attention panel's legend states that panel's fixed-block
  width; with one n, the growth-exponent figure says no exponent is fitted.
A table without the script's columns must be refused (non-zero exit, no PNG).

Each script runs once as a command (`script.py CSV -o OUT.png`, with
POSLSH_PLOT_DUMP=1 so that it describes its figure in OUT.plot.json), and on
the edge cases in-process (two worker processes, to stay within a few
seconds). `--plots DIR` checks the scripts of another directory (e.g. an older
version: `git show HEAD~1:plots/x.py > DIR/x.py`; add --in-process for scripts
that lack the POSLSH_PLOT_DUMP hook)."""
import argparse
import contextlib
import functools
import importlib
import importlib.util
import io
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
NAN = re.compile(r"\b(nan|inf)\b", re.IGNORECASE)
MIN_DELTA_E = 15.0
FLOOR = 1e-15


# ---------------------------------------------------------------- tables


def write(path, header, rows):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join("" if (isinstance(v, float) and np.isnan(v)) else str(v) for v in r) + "\n")
    return path


CONV_COLS = ("n,sigma,s,trial,form,p,spectral_error,spectral_accuracy,spectral_lower,spectral_upper,"
             "spectral_bound,max_error,max_bound,inf_error,b_max,b_max_bound,lanczos_iterations,"
             "lanczos_matvecs,status,seconds").split(",")


def convergence(d, name, ns, sigmas, ss, trials=2, zero=False):
    rng = np.random.default_rng(1)
    rows = []
    for n in ns:
        for sigma in sigmas:
            for s in ss:
                for trial in range(trials):
                    e = 0.0 if zero else 2 * sigma * np.sqrt(np.log(n) / 7) / np.sqrt(s) * (1 + 0.2 * rng.random())
                    m = 0.0 if zero else 1.6 / np.sqrt(s) * (1 + 0.1 * rng.random())
                    rows.append([n, sigma, s, trial, "symmetric", 0.01, e, 1e-7, e, e, 40 * sigma / np.sqrt(s),
                                 m, 4 / np.sqrt(s), 3 * m, int(3 * sigma), int(10 * sigma), 30, 40, "ok", 0.1])
    return write(os.path.join(d, name + ".csv"), CONV_COLS, rows)


def blocksize(d, name, ns, sigmas, ss, cs, trials, with_c_column=True):
    rng = np.random.default_rng(2)
    rows = []
    for n in ns:
        for sigma in sigmas:
            rules = [(s, np.nan) for s in ss] + [(max(1, int(np.ceil(c * np.log(n)))), c) for c in cs]
            for s, c in rules:
                for trial in range(trials):
                    g = rng.gamma(2.0, sigma, size=s).max()
                    rows.append([n, sigma, s, c, trial, g, int(np.ceil(g)), int(10 * sigma), 0.01])
    header = "n,sigma,s,s_log_c,trial,max_pitch,b_max,b_max_bound,p".split(",")
    if not with_c_column:
        header.pop(3)
        rows = [r[:3] + r[4:] for r in rows]
    return write(os.path.join(d, name + ".csv"), header, rows)


ATT_COLS = ("n,d,sigma,head,form,s,trial,estimator,width,keys_per_query,largest_block,max_error,"
            "rel_frobenius_error,certificate,uniform_bound,rounding_allowance,max_abs_logit,seconds").split(",")


def fixed_width(n, sigma):
    return int(2 * sigma + n // 256)  # differs between all panels of the tables below


def attention(d, name, ns, sigmas, ss, zero=False, window_zero_at_max_s=True, with_width=True):
    """Rows as poslsh attention writes them: fixed blocks once, with empty s and trial; empty
    cells where a column does not apply (width of lsh, largest block of a window)."""
    rows = []
    for n in ns:
        for h, sigma in enumerate(sigmas):
            cells = [("", "", "fixed", fixed_width(n, sigma), 0.05)]
            for trial in range(2):
                for s in ss:
                    cells.append((s, trial, "lsh", "", 0.1 / np.sqrt(s) * (1 + 0.1 * trial)))
                    e = 0.0 if window_zero_at_max_s and s == max(ss) else np.exp(-(2 * s + 1) / 2)
                    cells.append((s, trial, "window", int(2 * sigma * s), e))
            for s, trial, est, w, e in cells:
                e = 0.0 if zero else e
                block = "" if est == "window" else 20
                rows.append([n, 64, sigma, h, "symmetric", s, trial, est, w, 10, block, e, e, 3 * (e or 0.01),
                             10, 1e-12, 2.0, 0.01])
    header = list(ATT_COLS)
    if not with_width:
        i = header.index("width")
        header.pop(i)
        rows = [r[:i] + r[i + 1:] for r in rows]
    return write(os.path.join(d, name + ".csv"), header, rows)


def bench(d, name, ns, methods=(("exact", 1e-9, 2), ("lsh", 1e-6, 1), ("window", 1e-6, 1))):
    rows = [[n, m, c * n ** p, 0.01, 64, 32, -1, 1.0, 2] for n in ns for m, c, p in methods]
    return write(os.path.join(d, name + ".csv"),
                 "n,method,seconds,max_error,error_rows,keys_per_query,half_width,gflops,threads".split(","), rows)


FRONTIER_COLUMNS = "kernel,sigma,n,d,head,rows,trial,method,s,half_width,keys_per_query,rel_error,max_error"


def frontier(d, name, kernels, sigmas, ns, s_values, trials=3, window_zero=True):
    """A frontier table: LSH's error falling like 1/sqrt(s), the window's faster (exactly 0
    at the largest s when window_zero)."""
    rows = []
    for kernel in kernels:
        for sigma in sigmas:
            for n in ns:
                for t in range(trials):
                    for s in s_values:
                        keys = 1.5 * sigma * s
                        w = int((keys - 1) // 2)
                        win = 0.0 if window_zero and s == max(s_values) else 0.5 ** s * (1 + 0.01 * t)
                        rows.append([kernel, sigma, n, 16, 0, 64, t, "lsh", s, "", keys, (1 + 0.01 * t) / s ** 0.5, 1])
                        rows.append([kernel, sigma, n, 16, 0, 64, t, "window", s, w, 2 * w + 1, win, 1])
    return write(os.path.join(d, name + ".csv"), FRONTIER_COLUMNS.split(","), rows)


LM_COLUMNS = ("variant,train_s,seed,phase,steps,eval,eval_s,step,pos_lo,pos_hi,trial,layer,head,sigma,context,metric,"
              "value,stderr,count,margin,seconds,step_cpu_seconds")
LM_SUMMARY = ("variant,train_s,phase,eval,eval_s,step,pos_lo,pos_hi,head,context,metric,seeds,mean,seed_ci_low,"
              "seed_ci_high,batch_stderr,margin,vs_exact_mean,vs_exact_low,vs_exact_high,vs_exact_verdict,"
              "vs_fixed_block_mean,vs_fixed_block_low,vs_fixed_block_high,vs_fixed_block_verdict,vs_nobias_mean,"
              "vs_nobias_low,vs_nobias_high,vs_nobias_verdict,step_cpu_seconds")


def lm(d, name, s_values, seeds, variants=("exact", "lsh", "nobias", "fixed-block", "fixed", "window"), n=64,
       finetune=True):
    """An lm table (output errors, learning curves) and its summary beside it (losses, costs), as
    `poslsh lm` writes them; with one seed the intervals are empty, as `poslsh lm` leaves them."""
    rows, summary = [], []
    nan = np.nan
    with_s = ("lsh", "fixed", "window")
    models = [(v, s) for v in variants for s in (s_values if v in with_s else [nan])]
    offset = {"exact": 0.0, "lsh": 0.01, "nobias": 0.08, "fixed-block": 0.06, "fixed": 0.05, "window": 0.02}
    half = nan if seeds < 2 else 0.01

    def srow(v, s, phase, ev, es, step, pos, head, context, metric, mean, vs):
        summary.append([v, s, phase, ev, es, step, pos[0], pos[1], head, context, metric, seeds, mean,
                        mean - 2 * half, mean + 2 * half, 0.002, 0.02, vs, vs - half, vs + half,
                        "" if np.isnan(vs) else "undecided", nan, nan, nan, "", nan, nan, nan, "", 0.1])

    for v, s in models:
        evals = [("self", nan)] + ([("exact", nan)] if v == "lsh" else [])
        evals += [("lsh", e) for e in s_values] if v == "exact" else []
        srow(v, s, "train", "self", nan, nan, (nan, nan), nan, n, "train_bpb", 2.0, nan)
        keys = (n + 1) / 2 if v in ("exact", "nobias") else 3.0 * (s if np.isfinite(s) else 1)
        srow(v, s, "train", "self", nan, nan, (nan, nan), nan, n, "keys_per_query", keys, nan)
        for ev, es in evals:
            for m in (1, 2, 4):
                if ev == "lsh" and m > 1:
                    continue
                mean = 2.0 + offset[v] + 0.01 * m
                vs = nan if (v, ev) == ("exact", "self") else mean - 2.0 - 0.01 * m
                srow(v, s, "train", ev, es, nan, (nan, nan), nan, n * m, "val_bpb", mean, vs)
                if m == 4 and ev == "self":
                    for lo, hi in ((0, n), (n, 2 * n), (2 * n, 4 * n)):
                        srow(v, s, "train", ev, es, nan, (lo, hi), nan, n * m, "val_bpb", mean + 0.001 * lo / n, vs)
    for seed in range(seeds):
        for trial in range(3):
            for sigma in (4.0, 16.0, 64.0):
                for e in s_values:
                    rows.append(["exact", nan, seed, "train", 60, "lsh", e, nan, nan, nan, trial, 0, 0, sigma, n,
                                 "output_error", (0.3 + 0.01 * trial) * sigma ** 0.2 / np.sqrt(e), nan, 1, 0.02, 1.0, 0.1])
        for v, s in models:
            for step in range(0, 61, 20):
                rows.append([v, s, seed, "train", 60, "self", nan, step, nan, nan, nan, nan, nan, nan, n,
                             "curve_val_bpb", 8.0 - step / 20 + offset[v] + 0.01 * seed, nan, 2, 0.02, 1.0, 0.1])
            for phase in (("finetune", "finetune-nobias") if finetune and v != "nobias" else ()):
                for step in range(0, 11, 5):
                    rows.append([v, s, seed, phase, 10, "self", nan, step, nan, nan, nan, nan, nan, nan, n,
                                 "curve_val_bpb", 2.5 - step / 20 + offset[v] * (10 - step) / 10, nan, 2, 0.02, 1.0, 0.1])
    csv = write(os.path.join(d, name + ".csv"), LM_COLUMNS.split(","), rows)
    write(os.path.join(d, name + ".summary.csv"), LM_SUMMARY.split(","), summary)
    return csv


def cases(d):
    """(script, case name, CSV, extra checks) for every figure and edge case."""
    conv = {
        "normal": convergence(d, "conv_normal", [1024, 4096, 16384, 65536], [4.0, 16.0, 64.0], [1, 2, 4, 8, 16]),
        "one_n_one_sigma": convergence(d, "conv_one_n", [4096], [16.0], [1, 4, 16]),
        "one_s": convergence(d, "conv_one_s", [1024, 4096], [4.0, 16.0], [1]),
        "zero": convergence(d, "conv_zero", [1024, 4096], [4.0], [4, 16], zero=True),
    }
    out = []
    for name, csv in conv.items():
        zeros = [has_zero_key] if name == "zero" else []
        out.append(("convergence_error_vs_s", name, csv, zeros))
        out.append(("convergence_constant_vs_n", name, csv,
                    [says_no_exponent] if name.startswith("one_n") else []))
    big_n = [2 ** 10, 2 ** 14, 2 ** 20, 2 ** 30]
    five_sigmas = [1.0, 4.0, 16.0, 64.0, 256.0]
    out += [
        ("blocksize_law", "normal", blocksize(d, "block_normal", big_n, five_sigmas, [1, 8], [1, 2, 4], 52), []),
        ("blocksize_law", "one_n", blocksize(d, "block_one_n", [2 ** 20], [4.0, 16.0], [1, 8], [1, 2], 52), []),
        ("blocksize_law", "one_s_no_c_column", blocksize(d, "block_one_s", big_n, [4.0, 16.0], [8], [], 52, False), []),
        ("blocksize_law", "one_sigma_few_trials",
         blocksize(d, "block_few", [2 ** 10, 2 ** 20], [4.0], [1, 8], [1], 5), []),
    ]
    att_cells = [(512, 8.0), (512, 32.0), (2048, 8.0), (2048, 32.0)]
    out += [
        ("attention_error_vs_s", "normal", attention(d, "att_normal", [512, 2048], [8.0, 32.0], [1, 4, 16]),
         [has_zero_key, panel_widths(att_cells)]),
        ("attention_error_vs_s", "zero", attention(d, "att_zero", [512], [8.0, 32.0], [1, 4, 16], zero=True),
         [has_zero_key, panel_widths(att_cells[:2])]),
        ("attention_error_vs_s", "one_panel_one_s",
         attention(d, "att_one", [1024], [16.0], [4], window_zero_at_max_s=False), [panel_widths([(1024, 16.0)])]),
        ("attention_error_vs_s", "no_width_column",
         attention(d, "att_nowidth", [512], [8.0], [1, 4], window_zero_at_max_s=False, with_width=False), []),
        ("attention_error_vs_n", "normal", attention(d, "attn_n", [512, 2048, 8192], [8.0, 32.0], [1, 4, 16]), []),
        ("attention_error_vs_n", "one_n", attention(d, "attn_one_n", [1024], [16.0], [4, 16]), []),
        ("attention_error_vs_n", "zero", attention(d, "attn_n_zero", [512, 2048], [8.0], [1, 4], zero=True), []),
        ("attention_error_vs_s", "fixed_only",
         attention(d, "att_fixed", [512], [8.0], []), [panel_widths([(512, 8.0)])]),
        ("attention_time_vs_n", "normal", bench(d, "bench_normal", [4096, 8192, 16384]), []),
        ("attention_time_vs_n", "one_n", bench(d, "bench_one_n", [4096]), [says_no_slope]),
        ("attention_time_vs_n", "extra_method",
         bench(d, "bench_extra", [4096, 8192], (("exact", 1e-9, 2), ("lsh", 1e-6, 1), ("fixed", 1e-6, 1))), []),
    ]
    kernels = ["laplace", "power-law:1", "stretched-exponential:0.5", "triangle", "power-law:4"]
    out += [
        ("frontier", "normal", frontier(d, "front_normal", kernels, [2.0, 32.0], [1024, 65536], [1, 4, 16, 64]),
         [has_zero_key]),
        ("frontier", "one_kernel_one_s",
         frontier(d, "front_one", ["laplace"], [8.0], [4096], [4], window_zero=False), []),
    ]
    lm_normal, lm_one = lm(d, "lm_normal", [1, 4, 16], 3), lm(d, "lm_one_seed", [4], 1, ("exact", "lsh"))
    for script in ("lm_loss_vs_s", "lm_loss_vs_length", "lm_swapin_error_vs_s", "lm_frontier",
                   "lm_learning_curves", "lm_finetune"):
        out += [(script, "normal", lm_normal, []), (script, "one_seed_one_s", lm_one, [])]
    return out


# ---------------------------------------------------------------- running


@functools.lru_cache(maxsize=None)
def _describer():
    """plotlib.describe from this checkout (also when checking another --plots directory)."""
    spec = importlib.util.spec_from_file_location("poslsh_plotlib_describe", os.path.join(ROOT, "plots", "plotlib.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.describe


def run_inprocess(task):
    """Runs plots/<script>.py's main() on csv in this (worker) process, like the
    command line would; records the figure's description at its first savefig."""
    plots, script, csv, png = task
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    describe = _describer()
    if plots not in sys.path:
        sys.path.insert(0, plots)
    captured = {}
    original = Figure.savefig

    def savefig(fig, fname, *a, **kw):
        if "desc" not in captured:
            captured["desc"] = describe(fig)
        return original(fig, fname, *a, **kw)

    Figure.savefig = savefig
    out, err = io.StringIO(), io.StringIO()
    rc = 0
    argv = sys.argv
    try:
        sys.argv = [os.path.join(plots, script + ".py"), csv, "-o", png]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            importlib.import_module(script).main()
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 1
        err.write(str(e.code))
    except Exception as e:  # noqa: BLE001 - a crash is a failure to report, not to propagate
        rc = 1
        err.write(f"{type(e).__name__}: {e}")
    finally:
        sys.argv = argv
        Figure.savefig = original
        import matplotlib.pyplot as plt
        plt.close("all")
    return rc, out.getvalue() + err.getvalue(), captured.get("desc")


def run_cli(task):
    plots, script, csv, png = task
    env = dict(os.environ, POSLSH_PLOT_DUMP="1")
    r = subprocess.run([PY, os.path.join(plots, script + ".py"), csv, "-o", png],
                       capture_output=True, text=True, env=env)
    dump = png[:-4] + ".plot.json"
    desc = json.load(open(dump)) if os.path.exists(dump) else None
    return r.returncode, r.stdout + r.stderr, desc


def run_task(task):
    kind, rest = task
    return run_cli(rest) if kind == "cli" else run_inprocess(rest)


# ---------------------------------------------------------------- checks


def lab(hex_color):
    c = np.array([int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ c
    x = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(x > (6 / 29) ** 3, np.cbrt(x), x / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def key(a):
    return (a["color"], a["marker"], a["linestyle"])


def neutral(color):
    return color.startswith("#") and color[1:3] == color[3:5] == color[5:7]


def labelled(a):
    return not a["label"].startswith("_")


def backed(entry, artists):
    """A legend entry stands for a drawn artist with its label and look, or is
    a black style key whose marker and line style a drawn line uses."""
    for a in artists:
        if a["drawn"] and a["label"] == entry["text"]:
            if a.get("kind") or key(a) == key(entry):  # collections: legend patches differ in look
                return True
    if neutral(entry["color"]):
        return any(a["drawn"] and "kind" not in a and (a["marker"], a["linestyle"]) ==
                   (entry["marker"], entry["linestyle"]) for a in artists)
    return False


def check_figure(desc):
    """Generic checks on a figure description (plotlib.describe); a list of problems."""
    bad = []
    texts = [("caption", desc.get("caption", "")), ("suptitle", desc["suptitle"])]
    all_artists = []
    for i, ax in enumerate(desc["axes"]):
        texts += [(f"axes {i} {k}", ax[k]) for k in ("title", "xlabel", "ylabel")]
        texts += [(f"axes {i} text", t) for t in ax["texts"]]
        all_artists += ax["lines"] + ax["collections"]
    legends = [(f"axes {i} legend", ax["legend"], ax["lines"] + ax["collections"])
               for i, ax in enumerate(desc["axes"]) if ax["legend"]]
    legends += [("figure legend", leg, all_artists) for leg in desc["figure_legends"] if leg]
    for where, leg, _ in legends:
        texts += [(where, e["text"]) for e in leg]
    for where, text in texts:
        if NAN.search(text or ""):
            bad.append(f"{where}: '{text}' shows nan/inf")
    for i, ax in enumerate(desc["axes"]):
        if not ax["visible"]:
            continue
        where = f"axes {i} ('{ax['title']}')"
        drawn = [a for a in ax["lines"] if a["drawn"]]
        if not drawn and not any(c["drawn"] for c in ax["collections"]):
            bad.append(f"{where}: draws nothing")
        seen = {}
        for a in drawn:
            if key(a) in seen:
                bad.append(f"{where}: lines '{seen[key(a)]}' and '{a['label']}' share colour, marker "
                           f"and linestyle {key(a)}")
            seen.setdefault(key(a), a["label"])
        series = [a for a in drawn if labelled(a)]
        for j, a in enumerate(series):
            for b in series[j + 1:]:
                if (a["marker"], a["linestyle"]) == (b["marker"], b["linestyle"]) and a["color"] != b["color"]:
                    de = float(np.linalg.norm(lab(a["color"]) - lab(b["color"])))
                    if de < MIN_DELTA_E:
                        bad.append(f"{where}: '{a['label']}' and '{b['label']}' differ only by colours "
                                   f"{a['color']} / {b['color']} (CIELAB distance {de:.1f} < {MIN_DELTA_E:g})")
        if ax["yscale"] == "log":
            for a in drawn:
                y = np.array(a["y"], dtype=float)
                if a["y_data"] and np.any((y > 0) & (y <= FLOOR)):
                    bad.append(f"{where}: '{a['label']}' draws values <= {FLOOR:g} (a floor for zeros?)")
    for where, leg, artists in legends:
        texts_seen, looks = set(), {}
        for e in leg:
            if e["text"] in texts_seen:
                bad.append(f"{where}: entry '{e['text']}' appears twice")
            texts_seen.add(e["text"])
            if key(e) in looks and e["marker"] + e["linestyle"] != "none-":  # patches all look alike
                bad.append(f"{where}: entries '{looks[key(e)]}' and '{e['text']}' look the same {key(e)}")
            looks.setdefault(key(e), e["text"])
            if not backed(e, artists):
                bad.append(f"{where}: entry '{e['text']}' {key(e)} stands for no drawn artist")
        if where == "figure legend":
            for e in leg:
                for a in artists:
                    if a["drawn"] and "kind" not in a and labelled(a):
                        if a["label"] == e["text"] and key(a) != key(e):
                            bad.append(f"figure legend: '{e['text']}' is drawn as {key(a)} in some panel, "
                                       f"but its key is {key(e)}")
                        if a["label"] != e["text"] and key(a) == key(e) and not neutral(e["color"]):
                            bad.append(f"figure legend: '{a['label']}' is drawn like the key of '{e['text']}'")
    return bad


def all_legend_texts(desc):
    out = []
    for ax in desc["axes"]:
        out += [e["text"] for e in ax["legend"] or []]
    for leg in desc["figure_legends"]:
        out += [e["text"] for e in leg or []]
    return out


def has_zero_key(desc):
    return [] if "exact (0)" in all_legend_texts(desc) else ["no 'exact (0)' legend entry for exact zeros"]


def says_no_exponent(desc):
    titles = " ".join([desc["suptitle"]] + [ax["title"] for ax in desc["axes"]])
    bad = []
    if "no growth exponent" not in titles:
        bad.append("one n: the title does not say that no growth exponent is fitted")
    if "no growth exponent" not in desc.get("caption", ""):
        bad.append("one n: the caption does not say that no growth exponent is fitted")
    return bad


def says_no_slope(desc):
    titles = " ".join([desc["suptitle"]] + [ax["title"] for ax in desc["axes"]])
    return [] if "no slope" in titles else ["one n: the title does not say that no slope is fitted"]


def panel_widths(cells):
    def check(desc):
        bad = []
        for n, sigma in cells:
            want = f"fixed blocks (w={fixed_width(n, sigma)})"
            axes = [ax for ax in desc["axes"] if f"n = {n}," in ax["title"] and f"σ = {sigma:g}" in ax["title"]]
            if len(axes) != 1:
                bad.append(f"no single panel titled n = {n}, σ = {sigma:g}")
                continue
            texts = [e["text"] for e in axes[0]["legend"] or []]
            if want not in texts:
                bad.append(f"panel n = {n}, σ = {sigma:g}: legend {texts} lacks '{want}'")
        return bad
    return check


def check_files(png, caption_expected):
    bad = []
    stem = png[:-4]
    heads = {png: b"\x89PNG", stem + ".pdf": b"%PDF", stem + ".svg": None}
    for path, magic in heads.items():
        if not os.path.exists(path) or os.path.getsize(path) < 1000:
            bad.append(f"{os.path.basename(path)} missing or nearly empty")
            continue
        with open(path, "rb") as f:
            head = f.read(4096)
        if magic and not head.startswith(magic):
            bad.append(f"{os.path.basename(path)} is not a {magic!r} file")
        if magic is None and b"<svg" not in head:
            bad.append(f"{os.path.basename(path)} is not an SVG")
    cap = stem + ".caption.txt"
    if not os.path.exists(cap):
        bad.append(f"{os.path.basename(cap)} missing")
    else:
        text = open(cap, encoding="utf-8").read()
        lines = text.rstrip("\n").split("\n")
        if len(lines) != 1 or len(lines[0]) < 40:
            bad.append(f"caption is not one line of text: {text!r}")
        if "theory" not in text:
            bad.append("caption does not state what theory predicts")
        if NAN.search(text):
            bad.append(f"caption shows nan/inf: {text!r}")
        if caption_expected is not None and text.strip() != caption_expected.strip():
            bad.append("caption file and described caption differ")
    return bad


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plots", default=os.path.join(ROOT, "plots"), help="directory of the plot scripts")
    ap.add_argument("--keep", action="store_true", help="keep (and print) the output directory")
    ap.add_argument("--in-process", action="store_true",
                    help="run the normal tables in-process too (figures of scripts without the dump hook)")
    args = ap.parse_args()
    plots = os.path.abspath(args.plots)
    t0 = time.time()
    tmp = tempfile.TemporaryDirectory()
    d = tmp.name
    todo = cases(d)
    bad_csv = write(os.path.join(d, "bad.csv"), ["x", "y"], [[1, 2]])
    scripts = sorted({c[0] for c in todo})

    tasks, meta = [], []
    for script, name, csv, extra in todo:
        png = os.path.join(d, f"{script}__{name}.png")
        # The normal table through the command line (and the POSLSH_PLOT_DUMP hook), the rest in-process.
        tasks.append(("cli" if name == "normal" and not args.in_process else "inproc", (plots, script, csv, png)))
        meta.append((script, name, png, extra))
    for script in scripts:
        png = os.path.join(d, f"{script}__bad.png")
        tasks.append(("inproc", (plots, script, bad_csv, png)))
        meta.append((script, "bad table", png, None))
    import matplotlib  # imported once here, shared by the forked workers
    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
    # Longest first: the command-line runs start a fresh interpreter.
    order = sorted(range(len(tasks)), key=lambda i: tasks[i][0] != "cli")
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = dict(zip(order, pool.map(run_task, [tasks[i] for i in order], chunksize=1)))

    failures = 0
    for i, (script, name, png, extra) in enumerate(meta):
        rc, log, desc = results[i]
        if extra is None:  # the bad table
            problems = [] if rc != 0 and not os.path.exists(png) else [
                f"accepted a table without its columns (exit {rc}, PNG written: {os.path.exists(png)})"]
        elif rc != 0:
            problems = [f"exit {rc}: {log.strip()[-2000:]}"]
        else:
            caption = png[:-4] + ".caption.txt"
            if desc is not None and not desc.get("caption") and os.path.exists(caption):
                desc["caption"] = open(caption, encoding="utf-8").read().strip()  # in-process runs
            problems = check_files(png, desc.get("caption") if desc else None)
            if desc is None:
                problems.append("no figure description (POSLSH_PLOT_DUMP .plot.json or savefig)")
            else:
                problems += check_figure(desc)
                for fn in extra:
                    problems += fn(desc)
        failures += bool(problems)
        print(f"{'FAIL' if problems else 'PASS'}: {script} [{name}]")
        for p in problems:
            print(f"    {p}")
    print(f"{len(meta) - failures} passed, {failures} failed ({time.time() - t0:.1f} s)")
    if args.keep:
        tmp._finalizer.detach()
        print(f"outputs kept in {d}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
