#!/usr/bin/env python3
"""Runs every plot script on small synthetic tables of the experiments'
schemas: each must write a non-empty PNG, and must refuse (non-zero exit, no
PNG) a table that lacks its columns."""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable


def write(path, header, rows):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")


def main():
    rng = np.random.default_rng(1)
    d = tempfile.mkdtemp()
    conv = os.path.join(d, "convergence.csv")
    rows = []
    for n in [256, 1024]:
        for sigma in [4.0, 16.0]:
            for s in [1, 2, 4, 8, 16]:
                for trial in range(3):
                    e = 2 * sigma / np.sqrt(s) * (1 + 0.1 * rng.random())
                    rows.append([n, sigma, s, trial, e, 1e-7, 10 * e, 1 / np.sqrt(s), 3 / np.sqrt(s),
                                 e, int(3 * sigma), 40, "ok", 0.1])
    write(conv, "n,sigma,s,trial,spectral_error,spectral_accuracy,spectral_bound,max_error,max_bound,"
          "inf_error,b_max,lanczos_matvecs,status,seconds".split(","), rows)
    block = os.path.join(d, "blocksize.csv")
    rows = []
    for n in [2 ** 10, 2 ** 20]:
        for sigma in [4.0, 16.0]:
            for s in [1, 8]:
                for trial in range(60):
                    g = rng.gamma(2.0, sigma, size=s).max()
                    rows.append([n, sigma, s, trial, int(np.ceil(g)), int(10 * sigma), g])
    write(block, "n,sigma,s,trial,b_max,b_max_bound,max_pitch".split(","), rows)
    att = os.path.join(d, "attention.csv")
    rows = []
    for est in ["lsh", "fixed", "window"]:
        for s in [1, 4, 16]:
            for trial in range(2):
                e = 0.1 / np.sqrt(s)
                rows.append([512, 64, 8.0, s, trial, est, e, e, 3 * e, 10 * e, 0.01])
    write(att, "n,d,sigma,s,trial,estimator,max_error,rel_frobenius_error,certificate,uniform_bound,"
          "seconds".split(","), rows)
    bench = os.path.join(d, "bench.csv")
    rows = [[n, m, c * n ** p, 0.01] for n in [4096, 8192, 16384]
            for m, c, p in [("exact", 1e-9, 2), ("lsh", 1e-6, 1), ("window", 1e-6, 1)]]
    write(bench, "n,method,seconds,max_error".split(","), rows)
    bad = os.path.join(d, "bad.csv")
    write(bad, ["x", "y"], [[1, 2]])

    cases = [("convergence_error_vs_s", conv), ("convergence_constant_vs_n", conv),
             ("blocksize_law", block), ("attention_error_vs_s", att), ("attention_time_vs_n", bench)]
    failures = 0
    for script, csv in cases:
        path = os.path.join(ROOT, "plots", script + ".py")
        png = os.path.join(d, script + ".png")
        r = subprocess.run([PY, path, csv, "-o", png], capture_output=True, text=True)
        ok = r.returncode == 0 and os.path.exists(png) and os.path.getsize(png) > 10000
        bad_png = os.path.join(d, script + "_bad.png")
        r2 = subprocess.run([PY, path, bad, "-o", bad_png], capture_output=True, text=True)
        refused = r2.returncode != 0 and not os.path.exists(bad_png)
        print(f"{'PASS' if ok and refused else 'FAIL'}: {script} (draws: {ok}, refuses bad table: {refused})"
              + ("" if ok else "\n" + r.stderr))
        failures += not (ok and refused)
    print(f"{len(cases) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
