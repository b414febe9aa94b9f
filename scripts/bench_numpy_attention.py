#!/usr/bin/env python3
"""Dense exact ALiBi attention in numpy (float32) beside `poslsh bench
attention`'s exact kernel, same shapes, side by side in one run: the honest
baseline for poslsh's dense exact timings (docs/benchmarks.md).

numpy's speed is its BLAS's: Debian's numpy links the reference BLAS unless
an optimised one is installed (`apt-get install libopenblas0-pthread`); the
script prints which BLAS library numpy actually loaded. numpy computes, per
chunk of query rows, logits = q k^T / sqrt(d) - |i - j| / sigma, a stable
softmax and the product with v: the same O(n^2 d) work as poslsh's tiled
kernel, with the same thread count for both.

Usage: scripts/bench_numpy_attention.py [--poslsh build/bin/poslsh]
       [--n 4096,8192,16384,32768] [--d 64] [--sigma 16] [--threads 2] [--repeats 3]
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--poslsh", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "poslsh"))
    p.add_argument("--n", default="4096,8192,16384,32768")
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--sigma", type=float, default=16.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--chunk", type=int, default=1024, help="query rows per numpy chunk")
    a = p.parse_args()
    ns = [int(x) for x in a.n.split(",")]
    if a.threads < 1 or a.repeats < 1 or a.d < 1 or not a.sigma > 0 or min(ns) < 2:
        sys.exit("bench_numpy_attention: --threads, --repeats, --d >= 1, --sigma > 0, --n >= 2")
    # The BLAS thread count must be set before numpy loads it.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(a.threads)
    import numpy as np

    rng = np.random.default_rng(0)
    (rng.standard_normal((64, 64), dtype=np.float32) @ rng.standard_normal((64, 64), dtype=np.float32))
    with open("/proc/self/maps") as f:
        libs = sorted({line.split()[-1] for line in f if "blas" in line.lower() and ".so" in line})
    blas = ", ".join(libs) or "unknown"

    def numpy_attention(q, k, v):
        n, d = q.shape
        out = np.empty_like(v)
        j = np.arange(n, dtype=np.float32)
        scale = np.float32(1 / np.sqrt(d))
        slope = np.float32(1 / a.sigma)
        for r0 in range(0, n, a.chunk):
            r1 = min(n, r0 + a.chunk)
            logits = (q[r0:r1] @ k.T) * scale
            logits -= slope * np.abs(np.arange(r0, r1, dtype=np.float32)[:, None] - j[None, :])
            logits -= logits.max(axis=1, keepdims=True)
            np.exp(logits, out=logits)
            out[r0:r1] = (logits @ v) / logits.sum(axis=1, keepdims=True)
        return out

    numpy_s = {}
    for n in ns:
        q, k, v = (rng.standard_normal((n, a.d), dtype=np.float32) for _ in range(3))
        best = float("inf")
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            numpy_attention(q, k, v)
            best = min(best, time.perf_counter() - t0)
            if best > 5:
                break
        numpy_s[n] = best
        print(f"numpy n={n}: {best:.4g} s", file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.csv")
        subprocess.run([a.poslsh, "bench", "attention", "--n", a.n, "--d", str(a.d), "--sigma", str(a.sigma),
                        "--threads", str(a.threads), "--repeats", str(a.repeats), "--reference-rows", "64",
                        "--out", out], check=True, stdout=subprocess.DEVNULL)
        rows = [r for r in csv.DictReader(open(out)) if r["method"] == "exact"]
    poslsh_s = {int(r["n"]): float(r["seconds"]) for r in rows}

    print(f"dense exact ALiBi attention, float32, d={a.d}, sigma={a.sigma:g}, {a.threads} threads")
    print(f"numpy {np.__version__} BLAS: {blas}")
    print(f"{'n':>7} {'numpy_s':>10} {'poslsh_s':>10} {'numpy/poslsh':>13} {'poslsh GFLOP/s':>15}")
    for n in ns:
        flops = 4.0 * n * n * a.d
        print(f"{n:>7} {numpy_s[n]:>10.4g} {poslsh_s[n]:>10.4g} {numpy_s[n] / poslsh_s[n]:>13.2f} "
              f"{flops / poslsh_s[n] / 1e9:>15.1f}")


if __name__ == "__main__":
    main()
