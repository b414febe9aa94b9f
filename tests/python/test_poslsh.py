"""Tests of the Python module `poslsh` (python/poslsh_module.cpp).

  - bit-for-bit equality with the `poslsh` CLI for the same seed (hashes,
    blocks, convergence and blocksize rows, LSH attention errors);
  - dense numpy oracles at small n (exact ALiBi attention, the mask mean, the
    LSH attention estimator);
  - bad arguments: ValueError with the CLI's message for the same mistake;
  - dtypes, shapes and memory layouts; the GIL released during computations;
  - the PyTorch example (python/examples/torch_block_mask.py) and the install.

Run by ctest (python.pytest) with PYTHONPATH=<build>/python and POSLSH_CLI=the
poslsh binary; by hand: PYTHONPATH=build/python POSLSH_CLI=build/bin/poslsh
/usr/bin/python3 -m pytest -q tests/python
"""
import csv
import math
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import poslsh

SOURCE_DIR = Path(os.environ.get("POSLSH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
EXAMPLE = SOURCE_DIR / "python" / "examples" / "torch_block_mask.py"


# ---- the CLI -------------------------------------------------------------------------------


def run_cli(cli, *args):
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=120)


def cli_rows(cli, tmp_path, *args):
    out = tmp_path / "out.csv"
    quiet = [] if args[0] == "sample" else ["--quiet"]  # sample prints nothing anyway
    r = run_cli(cli, *args, "--out", out, *quiet)
    assert r.returncode == 0, r.stderr
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def cli_error(cli, tmp_path, *args):
    """The CLI's one-line message for unusable input (exit 2), without 'poslsh CMD: error: '."""
    r = run_cli(cli, *args, "--out", tmp_path / "never.csv")
    assert r.returncode == 2, (r.returncode, r.stderr)
    line = r.stderr.strip()
    assert "\n" not in line and ": error: " in line, line
    return line.split(": error: ", 1)[1]


def test_version_is_the_cli_version(cli):
    r = run_cli(cli, "--version")
    assert r.returncode == 0
    assert r.stdout.split()[:2] == ["poslsh", poslsh.__version__]


# ---- bit-for-bit equality with the CLI ---------------------------------------------------------


def test_draw_hashes_equal_cli_sample(cli, tmp_path):
    pitch, shift = poslsh.draw_hashes(seed=11, trial=2, s=9, sigma=7.5)
    assert pitch.dtype == np.float64 and shift.dtype == np.float64
    assert pitch.shape == (9,) and shift.shape == (9,)
    rows = cli_rows(cli, tmp_path, "sample", "--n", 1000, "--sigma", 7.5, "--s", 9, "--seed", 11, "--trial", 2)
    assert [int(r["sample"]) for r in rows] == list(range(9))
    # Shortest round-trip decimals: they read back to the same doubles.
    assert [float(r["pitch"]) for r in rows] == pitch.tolist()
    assert [float(r["shift"]) for r in rows] == shift.tolist()
    # Hash k does not depend on s; another trial or seed gives other hashes.
    assert poslsh.draw_hashes(11, 2, 4, 7.5)[0].tolist() == pitch[:4].tolist()
    assert poslsh.draw_hashes(11, 3, 9, 7.5)[0].tolist() != pitch.tolist()
    assert poslsh.draw_hashes(12, 2, 9, 7.5)[0].tolist() != pitch.tolist()


@pytest.mark.parametrize("s", [1, 3, 64, 1000])
def test_draw_hashes_are_nested_and_equal_the_cli_hash_for_hash(cli, tmp_path, s):
    """The module's batched drawer, as `poslsh hash-law`'s batched line reads the CLI's:
    the hashes for s are the first s of those for 2 s, and equal `poslsh sample`'s bit
    for bit (that line ties the CLI's batch to the scalar draw_hash every law line reads)."""
    pitch, shift = poslsh.draw_hashes(seed=5, trial=7, s=s, sigma=3.0)
    pitch2, shift2 = poslsh.draw_hashes(seed=5, trial=7, s=2 * s, sigma=3.0)
    assert pitch.tolist() == pitch2[:s].tolist() and shift.tolist() == shift2[:s].tolist()
    rows = cli_rows(cli, tmp_path, "sample", "--n", 8, "--sigma", 3.0, "--s", s, "--seed", 5, "--trial", 7)
    assert [float(r["pitch"]) for r in rows] == pitch.tolist()
    assert [float(r["shift"]) for r in rows] == shift.tolist()


def test_block_starts_equal_cli_blocks(cli, tmp_path):
    n = 300
    pitch, shift = poslsh.draw_hashes(4, 1, 5, 3.0)
    rows = cli_rows(cli, tmp_path, "sample", "--n", n, "--sigma", 3, "--s", 5, "--seed", 4, "--trial", 1, "--blocks")
    for k in range(5):
        starts = poslsh.block_starts(pitch[k], shift[k], n)
        assert starts.dtype == np.int64
        assert starts[0] == 0 and starts[-1] == n and np.all(np.diff(starts) > 0)
        cli_blocks = [(int(r["start"]), int(r["end"])) for r in rows if int(r["sample"]) == k]
        assert cli_blocks == list(zip(starts[:-1].tolist(), starts[1:].tolist()))
        # Position i is in bin floor((i - shift) / pitch): one bin per block, a new one at each start.
        bins = np.floor((np.arange(n) - shift[k]) / pitch[k])
        assert all(np.all(bins[a:b] == bins[a]) for a, b in zip(starts[:-1], starts[1:]))
        assert np.all(np.diff(bins[starts[:-1]]) > 0)


@pytest.mark.parametrize("causal", [False, True])
def test_spectral_and_max_error_equal_cli_convergence(cli, tmp_path, causal):
    n, sigma, s, seed = (2048, 8, 16, 3) if not causal else (1024, 4, 8, 9)
    args = ["convergence", "--n", n, "--sigma", sigma, "--s", s, "--trials", 2, "--seed", seed]
    rows = cli_rows(cli, tmp_path, *args, *(["--causal"] if causal else []))
    assert len(rows) == 2
    for row in rows:
        trial = int(row["trial"])
        r = poslsh.spectral_error(n, sigma, s, seed=seed, trial=trial, causal=causal)
        assert r["status"] == row["status"] == "ok"
        assert r["value"] == float(row["spectral_error"])
        assert r["lower"] == float(row["spectral_lower"])
        assert r["upper"] == float(row["spectral_upper"])
        assert r["accuracy"] == float(row["spectral_accuracy"])
        assert r["iterations"] == int(row["lanczos_iterations"])
        assert r["matvecs"] == int(row["lanczos_matvecs"])
        e = poslsh.max_error(n, sigma, s, seed=seed, trial=trial, causal=causal)
        assert e["max_error"] == float(row["max_error"])
        assert e["inf_error"] == float(row["inf_error"])
        assert e["largest_block"] == int(row["b_max"])
        assert poslsh.b_max(n, sigma, s, seed=seed, trial=trial) == int(row["b_max"])


def test_spectral_error_options_reach_the_solver(cli, tmp_path):
    args = ["convergence", "--n", 1500, "--sigma", 6, "--s", 4, "--trials", 1, "--seed", 2,
            "--spectral-tol", 1e-3, "--lanczos-starts", 3, "--upper-q", 0.01, "--upper-width", "inf"]
    row = cli_rows(cli, tmp_path, *args)[0]
    r = poslsh.spectral_error(1500, 6, 4, seed=2, tol=1e-3, starts=3, upper_q=0.01, upper_width=math.inf)
    assert (r["value"], r["upper"], r["iterations"]) == (
        float(row["spectral_error"]), float(row["spectral_upper"]), int(row["lanczos_iterations"]))
    assert r != poslsh.spectral_error(1500, 6, 4, seed=2)
    # A step cap it cannot meet: not_converged, value NaN, lower and upper still set.
    capped = poslsh.spectral_error(1500, 6, 4, seed=2, max_iterations=3)
    assert capped["status"] == "not_converged" and math.isnan(capped["value"])
    assert capped["iterations"] == 3 and 0 < capped["lower"] <= r["lower"]


@pytest.mark.parametrize("causal", [False, True])
def test_threads_give_the_same_bits(causal):
    # From n = 2^16 the starts run on threads of their own, and the entrywise
    # errors' two chunks on two threads: the results must not change.
    n, sigma, s = 2**16, 8, 16
    one = poslsh.spectral_error(n, sigma, s, seed=5, causal=causal, threads=1)
    assert one["status"] == "ok"
    assert poslsh.spectral_error(n, sigma, s, seed=5, causal=causal, threads=2) == one
    assert poslsh.spectral_error(n, sigma, s, seed=5, causal=causal, threads=0) == one
    e = poslsh.max_error(n, sigma, s, seed=5, causal=causal, threads=1)
    assert poslsh.max_error(n, sigma, s, seed=5, causal=causal, threads=2) == e


def test_b_max_equals_cli_blocksize(cli, tmp_path):
    n = 100000
    rows = cli_rows(cli, tmp_path, "blocksize", "--n", n, "--sigma", 4, "--s", 8, "--trials", 3, "--seed", 3)
    assert len(rows) == 3
    for row in rows:
        assert poslsh.b_max(n, 4, 8, seed=3, trial=int(row["trial"])) == int(row["b_max"])
    # And the definition: the largest block over the hashes' block_starts.
    pitch, shift = poslsh.draw_hashes(3, 1, 8, 4.0)
    assert poslsh.b_max(n, 4, 8, seed=3, trial=1) == max(
        np.diff(poslsh.block_starts(p, u, n)).max() for p, u in zip(pitch, shift))
    # n far beyond what could be enumerated.
    assert poslsh.b_max(2**50, 4, 8, seed=3) >= poslsh.b_max(n, 4, 8, seed=3)


def save_qkv(directory, q, k, v):
    directory.mkdir()
    for name, a in (("q", q), ("k", k), ("v", v)):
        np.save(directory / f"{name}.npy", a)
    return directory


def test_lsh_attention_error_equals_cli_attention(cli, tmp_path):
    # The CLI's synthetic Q, K, V are generated inside it; the same data go
    # through both paths as .npy files instead (--qkv DIR, float64).
    rng = np.random.default_rng(5)
    n, d = 256, 8
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    qkv = save_qkv(tmp_path / "qkv", q, k, v)
    rows = cli_rows(cli, tmp_path, "attention", "--qkv", qkv, "--sigma", 4, "--s", 4, "--trials", 1,
                    "--seed", 5, "--estimator", "lsh")
    assert [(r["estimator"], r["s"], r["trial"]) for r in rows] == [("lsh", "4", "0")]
    exact = poslsh.exact_attention(q, k, v, 4.0)
    approx = poslsh.lsh_attention(q, k, v, 4.0, 4, seed=5, trial=0)
    assert np.abs(approx - exact).max() == float(rows[0]["max_error"])
    assert int(rows[0]["largest_block"]) == poslsh.b_max(n, 4, 4, seed=5)


@pytest.mark.parametrize("independent", [False, True])
def test_multihead_lsh_attention_equals_cli(cli, tmp_path, independent):
    # (H, n, d) files, causal, 2 trials: head h's rows use sigma[h] and the
    # head's hashes (shared draw, or --independent-heads).
    rng = np.random.default_rng(8)
    heads, n, d = 2, 200, 4
    q, k, v = (rng.standard_normal((heads, n, d)) for _ in range(3))
    qkv = save_qkv(tmp_path / "qkv", q, k, v)
    sigmas = [16.0, 256.0]  # alibi_head_sigmas(2): 2^(8h/H), h = 1, 2
    extra = ["--alibi-heads", 2, "--independent-heads"] if independent else ["--sigma", "16,256"]
    rows = cli_rows(cli, tmp_path, "attention", "--qkv", qkv, *extra, "--s", 3, "--trials", 2,
                    "--seed", 7, "--estimator", "lsh", "--causal")
    assert len(rows) == heads * 2
    exact = poslsh.exact_attention(q, k, v, sigmas, causal=True)
    for row in rows:
        h, trial = int(row["head"]), int(row["trial"])
        assert float(row["sigma"]) == sigmas[h]
        approx = poslsh.lsh_attention(q, k, v, sigmas, 3, seed=7, trial=trial, causal=True,
                                      independent_heads=independent)
        assert np.abs(approx[h] - exact[h]).max() == float(row["max_error"])


# ---- dense numpy oracles ---------------------------------------------------------------------


def numpy_exact(q, k, v, sigma, causal=False, scale=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    n, d = q.shape
    scale = 1 / math.sqrt(d) if scale is None else scale
    i = np.arange(n)
    logits = q @ k.T * scale - np.abs(i[:, None] - i[None, :]) / sigma
    if causal:
        logits = np.where(i[None, :] <= i[:, None], logits, -np.inf)
    w = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (w @ v) / w.sum(axis=1, keepdims=True)


def block_masks(pitch, shift, n, causal=False):
    """The s dense 0/1 block masks built from block_starts."""
    masks = []
    for p, u in zip(pitch, shift):
        starts = poslsh.block_starts(p, u, n)
        ids = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
        m = (ids[:, None] == ids[None, :]).astype(np.float64)
        masks.append(np.tril(m) if causal else m)
    return masks


def numpy_lsh(q, k, v, sigma, s, seed=0, trial=0, causal=False, scale=None):
    """MATH §7: T~ = D~^-1 (A ⊙ M~) V, numerators and denominators summed over hashes, divided once."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    n, d = q.shape
    scale = 1 / math.sqrt(d) if scale is None else scale
    logits = q @ k.T * scale  # no positional bias: the masks carry it in expectation
    a = np.exp(logits - logits.max(axis=1, keepdims=True))
    num, den = np.zeros_like(v), np.zeros(n)
    for m in block_masks(*poslsh.draw_hashes(seed, trial, s, sigma), n, causal):
        num += (a * m) @ v
        den += (a * m).sum(axis=1)
    return num / den[:, None]


@pytest.fixture
def qkv64():
    rng = np.random.default_rng(64)
    return tuple(rng.standard_normal((64, 6)) for _ in range(3))


@pytest.mark.parametrize("causal", [False, True])
def test_exact_attention_matches_numpy(qkv64, causal):
    q, k, v = qkv64
    for sigma in (0.7, 5.0, 1e3):
        out = poslsh.exact_attention(q, k, v, sigma, causal=causal)
        assert out.dtype == np.float64 and out.shape == v.shape
        np.testing.assert_allclose(out, numpy_exact(q, k, v, sigma, causal), rtol=0, atol=1e-12)
    # float32 in, float32 out, to float32 rounding.
    q32, k32, v32 = (a.astype(np.float32) for a in qkv64)
    out32 = poslsh.exact_attention(q32, k32, v32, 5.0, causal=causal)
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, numpy_exact(q32, k32, v32, 5.0, causal), rtol=0, atol=1e-5)
    # Another logit scale.
    np.testing.assert_allclose(poslsh.exact_attention(q, k, v, 5.0, causal=causal, scale=0.9),
                               numpy_exact(q, k, v, 5.0, causal, scale=0.9), rtol=0, atol=1e-12)
    # Causal row 0 sees key 0 only.
    if causal:
        np.testing.assert_allclose(out[0], v[0], rtol=0, atol=1e-15)


def test_exact_attention_multihead_per_head_sigma():
    rng = np.random.default_rng(3)
    heads, n, d = 3, 64, 5
    q, k, v = (rng.standard_normal((heads, n, d)) for _ in range(3))
    sigmas = [0.5, 4.0, 64.0]
    for causal in (False, True):
        out = poslsh.exact_attention(q, k, v, sigmas, causal=causal)
        assert out.shape == (heads, n, d)
        for h in range(heads):
            np.testing.assert_allclose(out[h], numpy_exact(q[h], k[h], v[h], sigmas[h], causal), rtol=0, atol=1e-12)
        out32 = poslsh.exact_attention(*(a.astype(np.float32) for a in (q, k, v)), np.array(sigmas), causal=causal)
        assert out32.dtype == np.float32 and out32.shape == (heads, n, d)
        for h in range(heads):
            np.testing.assert_allclose(out32[h], numpy_exact(q[h], k[h], v[h], sigmas[h], causal), rtol=0, atol=1e-5)
    # A scalar sigma serves every head; a 2-D input is shared by every head.
    one = poslsh.exact_attention(q, k, v, 4.0)
    assert np.array_equal(one[0], poslsh.exact_attention(q[0], k[0], v[0], 4.0))
    shared_v = poslsh.exact_attention(q, k, v[1], sigmas)
    np.testing.assert_allclose(shared_v[2], numpy_exact(q[2], k[2], v[1], sigmas[2]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_mask_mean_matvec_matches_dense_masks(causal):
    n = 64
    pitch, shift = poslsh.draw_hashes(2, 0, 7, 3.0)
    x = np.random.default_rng(1).standard_normal(n)
    dense = np.mean(block_masks(pitch, shift, n, causal), axis=0)
    y = poslsh.mask_mean_matvec(pitch, shift, n, x, causal=causal)
    assert y.dtype == np.float64 and y.shape == (n,)
    np.testing.assert_allclose(y, dense @ x, rtol=0, atol=1e-12)
    # One hash: its block sums (symmetric) or prefix sums within the block (causal).
    starts = poslsh.block_starts(pitch[0], shift[0], n)
    y1 = poslsh.mask_mean_matvec(pitch[:1], shift[:1], n, x, causal=causal)
    for a, b in zip(starts[:-1], starts[1:]):
        want = np.cumsum(x[a:b]) if causal else np.full(b - a, x[a:b].sum())
        np.testing.assert_allclose(y1[a:b], want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_lsh_attention_matches_numpy_estimator(qkv64, causal):
    q, k, v = qkv64
    for sigma, s, seed in ((2.0, 1, 0), (5.0, 8, 3), (40.0, 5, 1)):
        out = poslsh.lsh_attention(q, k, v, sigma, s, seed=seed, trial=1, causal=causal)
        want = numpy_lsh(q, k, v, sigma, s, seed=seed, trial=1, causal=causal)
        np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)
        # Not the average of per-hash normalised outputs (a different, biased estimator) when s > 1.
        if s > 1:
            per_hash = np.mean([numpy_lsh_one(q, k, v, m) for m in
                                block_masks(*poslsh.draw_hashes(seed, 1, s, sigma), 64, causal)], axis=0)
            assert np.abs(out - per_hash).max() > 1e-6
    q32, k32, v32 = (a.astype(np.float32) for a in qkv64)
    out32 = poslsh.lsh_attention(q32, k32, v32, 5.0, 8, seed=3, causal=causal, scale=0.5)
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, numpy_lsh(q32, k32, v32, 5.0, 8, seed=3, causal=causal, scale=0.5),
                               rtol=0, atol=1e-5)


def numpy_lsh_one(q, k, v, m):
    a = np.exp(q @ k.T / math.sqrt(q.shape[1])) * m
    return (a @ v) / a.sum(axis=1, keepdims=True)


def test_lsh_attention_multihead_and_independent_heads():
    rng = np.random.default_rng(9)
    heads, n, d = 2, 64, 4
    q, k, v = (rng.standard_normal((heads, n, d)) for _ in range(3))
    sigmas = [3.0, 12.0]
    shared = poslsh.lsh_attention(q, k, v, sigmas, 4, seed=6, trial=2)
    indep = poslsh.lsh_attention(q, k, v, sigmas, 4, seed=6, trial=2, independent_heads=True)
    assert shared.shape == indep.shape == (heads, n, d)
    for h in range(heads):
        # Shared heads: every head draws with the run's seed.
        np.testing.assert_allclose(shared[h], numpy_lsh(q[h], k[h], v[h], sigmas[h], 4, seed=6, trial=2),
                                   rtol=0, atol=1e-12)
        # Independent heads: head h's own seed (include/poslsh/alibi_heads.h).
        np.testing.assert_allclose(indep[h], numpy_lsh(q[h], k[h], v[h], sigmas[h], 4,
                                                       seed=independent_head_seed(6, h), trial=2),
                                   rtol=0, atol=1e-12)
    assert not np.array_equal(shared, indep)


def mix64(z):
    m = (1 << 64) - 1
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def independent_head_seed(seed, head):
    return mix64(mix64(seed ^ 0xBB67AE8584CAA73B) ^ (head + 0x1F83D9ABFB41BD6B))


def test_lsh_attention_converges_to_exact(qkv64):
    # E[M~] = L*: with many hashes the estimate approaches exact ALiBi attention.
    q, k, v = qkv64
    exact = poslsh.exact_attention(q, k, v, 4.0)
    errors = [np.abs(poslsh.lsh_attention(q, k, v, 4.0, s, seed=1) - exact).max() for s in (4, 4096)]
    assert errors[1] < 0.05 < errors[0]


def test_threads_do_not_change_results():
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((700, 8)) for _ in range(3))  # several row chunks
    for f in (lambda t: poslsh.lsh_attention(q, k, v, 6.0, 5, threads=t),
              lambda t: poslsh.exact_attention(q, k, v, 6.0, causal=True, threads=t)):
        assert np.array_equal(f(1), f(0)) and np.array_equal(f(1), f(3))


# ---- bad arguments ---------------------------------------------------------------------------

NAN = float("nan")

# (Python call, the CLI command line making the same mistake): equal messages.
SAME_AS_CLI = [
    (lambda: poslsh.draw_hashes(0, 0, 4, -1.0), ["sample", "--n", 8, "--sigma", -1, "--s", 4]),
    (lambda: poslsh.draw_hashes(0, 0, 4, NAN), ["sample", "--n", 8, "--sigma", "nan", "--s", 4]),
    (lambda: poslsh.draw_hashes(0, 0, 4, 0.0), ["sample", "--n", 8, "--sigma", 0, "--s", 4]),
    (lambda: poslsh.draw_hashes(0, 0, 0, 2.0), ["sample", "--n", 8, "--sigma", 2, "--s", 0]),
    (lambda: poslsh.block_starts(2.0, 1.0, 0), ["sample", "--n", 0, "--sigma", 2, "--s", 1]),
    (lambda: poslsh.mask_mean_matvec([2.0], [1.0], 0, []), ["sample", "--n", 0, "--sigma", 2, "--s", 1]),
    (lambda: poslsh.spectral_error(0, 8, 4), ["convergence", "--n", 0, "--sigma", 8, "--s", 4]),
    (lambda: poslsh.spectral_error(2**32, 8, 4), ["convergence", "--n", 2**32, "--sigma", 8, "--s", 4]),
    (lambda: poslsh.spectral_error(64, -8, 4), ["convergence", "--n", 64, "--sigma", -8, "--s", 4]),
    (lambda: poslsh.spectral_error(64, NAN, 4), ["convergence", "--n", 64, "--sigma", "nan", "--s", 4]),
    (lambda: poslsh.spectral_error(64, 8, 0), ["convergence", "--n", 64, "--sigma", 8, "--s", 0]),
    (lambda: poslsh.spectral_error(64, 8, 4, tol=0), ["convergence", "--n", 64, "--spectral-tol", 0]),
    (lambda: poslsh.spectral_error(64, 8, 4, max_iterations=0), ["convergence", "--n", 64, "--max-lanczos", 0]),
    (lambda: poslsh.spectral_error(64, 8, 4, starts=9), ["convergence", "--n", 64, "--lanczos-starts", 9]),
    (lambda: poslsh.spectral_error(64, 8, 4, starts=0), ["convergence", "--n", 64, "--lanczos-starts", 0]),
    (lambda: poslsh.spectral_error(64, 8, 4, upper_q=1.0), ["convergence", "--n", 64, "--upper-q", 1]),
    (lambda: poslsh.spectral_error(64, 8, 4, upper_width=0.0), ["convergence", "--n", 64, "--upper-width", 0]),
    (lambda: poslsh.spectral_error(64, 8, 4, threads=-1), ["convergence", "--n", 64, "--threads", -1]),
    (lambda: poslsh.max_error(64, 8, 4, threads=-1), ["convergence", "--n", 64, "--threads", -1]),
    (lambda: poslsh.max_error(0, 8, 4), ["convergence", "--n", 0, "--sigma", 8, "--s", 4]),
    (lambda: poslsh.max_error(64, 0, 4), ["convergence", "--n", 64, "--sigma", 0, "--s", 4]),
    (lambda: poslsh.max_error(64, 8, 0, causal=True), ["convergence", "--n", 64, "--s", 0, "--causal"]),
    (lambda: poslsh.b_max(0, 8, 4), ["blocksize", "--n", 0, "--sigma", 8, "--s", 4]),
    (lambda: poslsh.b_max(2**50 + 1, 8, 4), ["blocksize", "--n", 2**50 + 1, "--sigma", 8, "--s", 4]),
    (lambda: poslsh.b_max(64, NAN, 4), ["blocksize", "--n", 64, "--sigma", "nan", "--s", 4]),
    (lambda: poslsh.b_max(64, 8, 0), ["blocksize", "--n", 64, "--sigma", 8, "--s", 0]),
    (lambda: poslsh.exact_attention(*QKV, -2.0), ["attention", "--n", 16, "--sigma", -2]),
    (lambda: poslsh.exact_attention(*QKV, NAN), ["attention", "--n", 16, "--sigma", "nan"]),
    (lambda: poslsh.exact_attention(*QKV3, [2.0, -1.0]), ["attention", "--n", 16, "--sigma", "2,-1"]),
    (lambda: poslsh.lsh_attention(*QKV, math.inf, 4), ["attention", "--n", 16, "--sigma", "inf"]),
    (lambda: poslsh.lsh_attention(*QKV, 2.0, 0), ["attention", "--n", 16, "--sigma", 2, "--s", 0]),
]
QKV = tuple(np.ones((16, 4)) for _ in range(3))
QKV3 = tuple(np.ones((2, 16, 4)) for _ in range(3))


# The CLI flag a Python argument stands for: the messages are the CLI's with the
# Python name in place of the flag.
PYTHON_NAME = {"n": "n", "s": "s", "sigma": "sigma", "spectral-tol": "tol", "max-lanczos": "max_iterations",
               "lanczos-starts": "starts", "upper-q": "upper_q", "upper-width": "upper_width",
               "threads": "threads"}


@pytest.mark.parametrize("call,cli_args", SAME_AS_CLI, ids=[" ".join(map(str, a)) for _, a in SAME_AS_CLI])
def test_value_error_message_is_the_cli_one_with_python_names(cli, tmp_path, call, cli_args):
    expected = cli_error(cli, tmp_path, *cli_args)
    assert expected.startswith("--"), expected  # the CLI names its flag ...
    with pytest.raises(ValueError) as e:
        call()
    assert "--" not in str(e.value)  # ... Python its argument
    assert str(e.value) == re.sub(r"^--([a-z-]+)", lambda m: PYTHON_NAME[m.group(1)], expected)


Q = np.ones((16, 4))

# Mistakes the CLI cannot make (its shapes come from files): a ValueError naming them.
WITHOUT_CLI = [
    (lambda: poslsh.exact_attention(Q, np.ones((15, 4)), Q, 2.0), "same number of rows n"),
    (lambda: poslsh.lsh_attention(Q, Q, np.ones((15, 4)), 2.0, 2), "same number of rows n"),
    (lambda: poslsh.exact_attention(Q, np.ones((16, 5)), Q, 2.0), "same number of columns d"),
    (lambda: poslsh.exact_attention(np.ones((0, 4)), np.ones((0, 4)), np.ones((0, 4)), 2.0), "n >= 1"),
    (lambda: poslsh.lsh_attention(np.ones((16, 0)), np.ones((16, 0)), Q, 2.0, 2), "d >= 1"),
    (lambda: poslsh.exact_attention(np.ones(16), Q, Q, 2.0), "q: expected shape (n, d) or (H, n, d), got rank 1"),
    (lambda: poslsh.lsh_attention(Q, np.ones((1, 2, 16, 4)), Q, 2.0, 2), "k: expected shape (n, d) or (H, n, d), got rank 4"),
    (lambda: poslsh.exact_attention(np.ones((2, 16, 4)), np.ones((3, 16, 4)), Q, 2.0), "q has 2 heads but another input has 3"),
    (lambda: poslsh.exact_attention(*QKV3, [1.0, 2.0, 3.0]), "the inputs have 2 heads, so give 2 scales, got 3"),
    (lambda: poslsh.exact_attention(*QKV, [1.0, 2.0]), "2-D q, k, v take one scale"),
    (lambda: poslsh.exact_attention(*QKV, []), "sigma must be a scale > 0 or a list of them"),
    (lambda: poslsh.exact_attention(*QKV, 2.0, scale=math.nan), "scale must be a finite number"),
    (lambda: poslsh.lsh_attention(*QKV, 2.0, 2, threads=-1), "threads must be an integer >= 0 (got -1)"),
    (lambda: poslsh.mask_mean_matvec([2.0], [1.0], 8, np.ones(7)), "x must have n = 8 entries, got 7"),
    (lambda: poslsh.mask_mean_matvec([2.0, 3.0], [1.0], 8, np.ones(8)), "pitch and shift must have the same length"),
    (lambda: poslsh.mask_mean_matvec([], [], 8, np.ones(8)), "pitch and shift must hold s >= 1 hashes (got 0)"),
    (lambda: poslsh.mask_mean_matvec([0.0], [0.0], 8, np.ones(8)), "pitch must be a finite number > 0 (got 0)"),
    (lambda: poslsh.mask_mean_matvec([2.0], [2.5], 8, np.ones(8)), "shift must lie in [0, pitch] (got shift 2.5, pitch 2)"),
    (lambda: poslsh.mask_mean_matvec([2.0], [1.0], 2**32, np.ones(8)), "x must have n = 4294967296 entries"),
    (lambda: poslsh.block_starts(-1.0, 0.0, 8), "pitch must be a finite number > 0 (got -1)"),
    (lambda: poslsh.block_starts(1.0, NAN, 8), "shift must lie in [0, pitch] (got shift nan, pitch 1)"),
    (lambda: poslsh.alibi_sigmas(0), "heads must be an integer >= 1 (got 0)"),
]


@pytest.mark.parametrize("call,text", WITHOUT_CLI, ids=[t for _, t in WITHOUT_CLI])
def test_value_error_without_cli_equivalent(call, text):
    with pytest.raises(ValueError) as e:
        call()
    assert text in str(e.value) and "--" not in str(e.value)  # Python names, never CLI flags


# The core's checks (poslsh::ArgumentError) name the argument by meaning; the
# module raises them with the Python parameter's name, which for the solver's
# rel_tol is tol.
CORE_NAMED = [
    (lambda: poslsh.spectral_error(64, 8, 4, tol=-1.0), "tol must be a finite number > 0 (got -1)"),
    (lambda: poslsh.spectral_error(64, 8, 4, upper_q=0.0), "upper_q must be a number in (0, 1) (got 0)"),
    (lambda: poslsh.draw_hashes(0, 0, 3, -0.5), "sigma must be a finite number > 0 (got -0.5)"),
    (lambda: poslsh.exact_attention(*QKV, 2.0, threads=-2), "threads must be an integer >= 0 (got -2)"),
]


@pytest.mark.parametrize("call,message", CORE_NAMED, ids=[m for _, m in CORE_NAMED])
def test_core_argument_errors_name_the_python_argument(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == message


def test_bad_types_raise_type_error():
    with pytest.raises(TypeError):
        poslsh.draw_hashes(-1, 0, 4, 2.0)  # seeds are unsigned 64-bit, as --seed
    with pytest.raises(TypeError):
        poslsh.exact_attention(Q, Q, Q, "wide")
    with pytest.raises(TypeError):
        poslsh.exact_attention([[1, 2], [3]], Q, Q, 2.0)
    with pytest.raises(TypeError):
        poslsh.spectral_error(n=64, sigma=8)  # s is required


# ---- dtypes, shapes, layouts -----------------------------------------------------------------


def test_dtype_and_shape_follow_the_inputs():
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal((32, 3)).astype(np.float32) for _ in range(3))
    v5 = rng.standard_normal((32, 5)).astype(np.float32)
    for f in (lambda *a: poslsh.exact_attention(*a, 3.0), lambda *a: poslsh.lsh_attention(*a, 3.0, 3)):
        assert f(q, k, v).dtype == np.float32
        assert f(q, k, v5).shape == (32, 5)  # dv may differ from d
        assert f(q, k, v.astype(np.float64)).dtype == np.float64  # mixed: float64
        assert f(q.astype(np.float64), k, v).dtype == np.float64
        assert f(q.tolist(), k.tolist(), v.tolist()).dtype == np.float64  # lists: float64
        np.testing.assert_allclose(f(q, k, v), f(*(a.astype(np.float64) for a in (q, k, v))), atol=1e-5)
        # Objects numpy reads as arrays (CPU torch tensors, ...) keep their float32.
        assert f(AsArray(q), AsArray(k), AsArray(v)).dtype == np.float32
        # (1, n, d) is shared by every head, like (n, d).
        h3 = f(q[None], k, np.stack([v5, 2 * v5]))
        assert h3.shape == (2, 32, 5) and h3.dtype == np.float32
        np.testing.assert_allclose(h3[1], 2 * h3[0], rtol=1e-6)


class AsArray:
    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None):
        return self.a if dtype is None else self.a.astype(dtype)


def test_fortran_order_and_strided_inputs_give_the_same_answer():
    rng = np.random.default_rng(6)
    big = rng.standard_normal((3, 48, 10))
    q, k, v = (np.ascontiguousarray(big[i, :, ::2]) for i in range(3))
    ref_exact = poslsh.exact_attention(q, k, v, 5.0, causal=True)
    ref_lsh = poslsh.lsh_attention(q, k, v, 5.0, 6, seed=2)
    variants = [
        (big[0, :, ::2], big[1, :, ::2], big[2, :, ::2]),  # strided views
        (np.asfortranarray(q), np.asfortranarray(k), np.asfortranarray(v)),
        (q, k[::-1][::-1], v),
    ]
    for qq, kk, vv in variants:
        assert np.array_equal(poslsh.exact_attention(qq, kk, vv, 5.0, causal=True), ref_exact)
        assert np.array_equal(poslsh.lsh_attention(qq, kk, vv, 5.0, 6, seed=2), ref_lsh)
    # float32 Fortran order stays float32 and equals the C-order result.
    q32 = q.astype(np.float32)
    out = poslsh.exact_attention(np.asfortranarray(q32), q32, q32, 2.0)
    assert out.dtype == np.float32 and np.array_equal(out, poslsh.exact_attention(q32, q32, q32, 2.0))
    # mask_mean_matvec on a strided x.
    pitch, shift = poslsh.draw_hashes(1, 0, 3, 2.0)
    x = rng.standard_normal(96)
    assert np.array_equal(poslsh.mask_mean_matvec(pitch, shift, 48, x[::2]),
                          poslsh.mask_mean_matvec(pitch, shift, 48, x[::2].copy()))


def test_inputs_are_not_modified():
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((40, 4)) for _ in range(3))
    copies = [a.copy() for a in (q, k, v)]
    poslsh.lsh_attention(q, k, v, 3.0, 2, scale=0.3)
    poslsh.exact_attention(q, k, v, 3.0, scale=2.0)
    assert all(np.array_equal(a, c) for a, c in zip((q, k, v), copies))


# ---- the GIL ---------------------------------------------------------------------------------


def gil_problem():
    rng = np.random.default_rng(10)
    return tuple(rng.standard_normal((16384, 64)) for _ in range(3))


def test_concurrent_threads_equal_sequential():
    q, k, v = gil_problem()
    seeds = (0, 1)
    sequential = [poslsh.lsh_attention(q, k, v, 32.0, 6, seed=s) for s in seeds]
    results = [None, None]

    def work(i):
        results[i] = poslsh.lsh_attention(q, k, v, 32.0, 6, seed=seeds[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, sequential):
        assert np.array_equal(got, want)
    assert not np.array_equal(results[0], results[1])


def test_gil_released_during_computation():
    # A second thread records timestamps while lsh_attention runs. Were the GIL
    # held by the call, that thread could not run in its middle at all (only
    # within a switch interval of its start or end); released, it runs
    # throughout. No speed is asserted, only whether Python ran mid-call.
    q, k, v = gil_problem()
    old = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    stamps, done = [], threading.Event()

    def sample():
        while not done.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.0002)  # needs the GIL back to go on

    sampler = threading.Thread(target=sample)
    try:
        sampler.start()
        time.sleep(0.01)
        t0 = time.perf_counter()
        for _ in range(8):  # at least ~0.2 s of computation, however fast the machine
            poslsh.lsh_attention(q, k, v, 32.0, 16)
            if time.perf_counter() - t0 > 0.2:
                break
        t1 = time.perf_counter()
    finally:
        done.set()
        sampler.join()
        sys.setswitchinterval(old)
    # Calls follow each other: the Python between them is a sliver; the middle
    # of [t0, t1], away from its ends by 20 switch intervals, is inside a call.
    margin = 0.02
    middle = [t for t in stamps if t0 + margin < t < t1 - margin]
    assert t1 - t0 > 4 * margin
    assert middle, f"no Python ran during {t1 - t0:.3f} s of lsh_attention: the GIL was held"


# ---- the PyTorch example and the install -----------------------------------------------------


def test_torch_example_runs():
    try:
        import torch  # noqa: F401
    except ImportError as e:
        pytest.skip(f"import torch failed ({e}): Debian's python3-torch is not installed")
    r = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "max |torch - poslsh.lsh_attention|" in r.stdout


def test_install_prefix_is_importable(tmp_path):
    cmake, build = os.environ.get("POSLSH_CMAKE"), os.environ.get("POSLSH_BUILD_DIR")
    if not cmake or not build:
        pytest.skip("POSLSH_CMAKE and POSLSH_BUILD_DIR are set by ctest (python.pytest) only")
    prefix = tmp_path / "prefix"
    r = subprocess.run([cmake, "--install", build, "--component", "python", "--prefix", str(prefix)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    site = prefix / "lib" / "python3" / "dist-packages"
    env = dict(os.environ, PYTHONPATH=str(site))
    r = subprocess.run([sys.executable, "-c", "import poslsh; print(poslsh.__file__, poslsh.__version__)"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    path, version = r.stdout.split()
    assert Path(path).parent == site / "poslsh" and version == poslsh.__version__
