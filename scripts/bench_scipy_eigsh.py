#!/usr/bin/env python3
"""Side-by-side baseline for the convergence benchmark: the spectral error
||M~ - L*||_2 with scipy's eigsh (ARPACK, tol 1e-8) on a matrix-free numpy
operator of the same O(n + #blocks) cost, against one whole `poslsh
convergence` row (spectral, max-norm and row-sum errors) for the same hashes.

    python3 scripts/bench_scipy_eigsh.py --n 65536 --sigma 16 --s 64 --seed 0 --trials 2

The hashes come from `poslsh sample --blocks`, so both sides see identical
blocks. Prints which BLAS numpy uses: ARPACK's own work is small next to the
operator, but a reader should know.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
from scipy.signal import lfilter
from scipy.sparse.linalg import LinearOperator, eigsh


def blas_name():
    try:
        cfg = np.__config__.blas_opt_info  # numpy < 1.26
        return ",".join(cfg.get("libraries", [])) or "unknown"
    except AttributeError:
        return "unknown"


def error_operator(n, sigma, blocks_csv, s):
    data = np.loadtxt(blocks_csv, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    lo, hi = data[:, 1], data[:, 2]
    r = np.exp(-1.0 / sigma)
    count = [0]

    def matvec(x):
        count[0] += 1
        x = np.asarray(x).ravel()
        p = np.concatenate(([0.0], np.cumsum(x)))
        v = p[hi] - p[lo]
        d = np.bincount(lo, weights=v, minlength=n + 1) - np.bincount(hi, weights=v, minlength=n + 1)
        mx = np.cumsum(d)[:n] / s
        f = lfilter([1.0], [1.0, -r], x)
        g = lfilter([1.0], [1.0, -r], x[::-1])[::-1]
        return mx - (f + g - x)

    return LinearOperator((n, n), matvec=matvec, dtype=np.float64), count


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--sigma", type=float, default=16.0)
    ap.add_argument("--s", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--poslsh", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "poslsh"))
    ap.add_argument("--csv", help="also write the rows to this CSV file (what `poslsh bench "
                    "convergence --scipy-seeds` reads)")
    a = ap.parse_args()
    print(f"scipy {scipy.__version__}, numpy {np.__version__}, BLAS: {blas_name()}")
    print(f"{'trial':>5} {'eigsh_s':>9} {'matvecs':>8} {'poslsh_row_s':>13} {'ratio':>7} {'eigsh_value':>14} {'poslsh_value':>14}")
    tmp = tempfile.mkdtemp()
    rows = []
    for trial in range(a.trials):
        blocks = os.path.join(tmp, "blocks.csv")
        subprocess.run([a.poslsh, "sample", "--n", str(a.n), "--sigma", str(a.sigma), "--s", str(a.s),
                        "--seed", str(a.seed), "--trial", str(trial), "--blocks", "--out", blocks], check=True)
        op, count = error_operator(a.n, a.sigma, blocks, a.s)
        x0 = np.random.default_rng(trial).standard_normal(a.n)
        t = time.perf_counter()
        vals = eigsh(op, k=1, which="LM", tol=a.tol, v0=x0, return_eigenvectors=False)
        t_scipy = time.perf_counter() - t
        out = os.path.join(tmp, "row.csv")
        # Trials 0..trial run; the last row is this trial's (the earlier ones are timed by their own column).
        subprocess.run([a.poslsh, "convergence", "--n", str(a.n), "--sigma", str(a.sigma), "--s", str(a.s),
                        "--seed", str(a.seed), "--trials", str(trial + 1), "--threads", "1", "--quiet",
                        "--out", out], check=True)
        with open(out) as f:
            row = list(csv.DictReader(f))[-1]
        t_row = float(row["seconds"])
        print(f"{trial:>5} {t_scipy:>9.2f} {count[0]:>8} {t_row:>13.3f} {t_scipy / t_row:>7.1f} "
              f"{abs(vals[0]):>14.10g} {float(row['spectral_error']):>14.10g}")
        rows.append([trial, f"{t_scipy:.6f}", count[0], f"{t_row:.6f}", f"{t_scipy / t_row:.3f}",
                     f"{abs(vals[0]):.17g}", row["spectral_error"]])
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["trial", "eigsh_seconds", "eigsh_matvecs", "poslsh_row_seconds", "ratio",
                        "eigsh_value", "poslsh_value"])
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
