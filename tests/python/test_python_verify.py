"""Verification from Python (python/bindings/verification.cpp, lsh_attention's
pitch and shift):

  - poslsh.verify_hashes and poslsh.verify_blocks print, line for line and bit
    for bit, what `poslsh verify` prints for the same samples written to CSV
    (sound samplers, planted defects, a trial column);
  - bad arguments: one-line ValueError naming the argument;
  - lsh_attention on given hashes equals lsh_attention on the same hashes drawn;
  - the PyTorch example (python/examples/test_torch_verify.py) passes, and fails
    with each of its planted bugs;
  - docs/python-verify.md's code runs as written.

Run as tests/python/test_poslsh.py says (POSLSH_CLI: the poslsh binary).
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import poslsh

SOURCE_DIR = Path(os.environ.get("POSLSH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
EXAMPLE = SOURCE_DIR / "python" / "examples" / "test_torch_verify.py"
DOC = SOURCE_DIR / "docs" / "python-verify.md"


def cli_verify(cli, flag, path, n, sigma, *extra):
    r = subprocess.run([cli, "verify", flag, str(path), "--n", str(n), "--sigma", repr(sigma), *extra],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    return r


def write_hashes(path, pitch, shift, trial=None):
    # repr: the shortest text that reads back to the same double, as the CLI writes.
    with open(path, "w") as f:
        f.write("sample,pitch,shift\n" if trial is None else "trial,sample,pitch,shift\n")
        for k, (p, u) in enumerate(zip(pitch, shift)):
            f.write(("" if trial is None else f"{trial[k]},") + f"{k},{float(p)!r},{float(u)!r}\n")


def write_blocks(path, starts):
    with open(path, "w") as f:
        f.write("sample,start,end\n")
        for k, st in enumerate(starts):
            for b in range(len(st) - 1):
                f.write(f"{k},{st[b]},{st[b + 1]}\n")


def assert_same_as_cli(result, run, batch=16):
    """The CLI's output is its header, the check lines and the tally: each equal."""
    header, *lines, tally = run.stdout.splitlines()
    assert [line["text"] for line in result["lines"]] == lines
    assert result["summary"] == tally
    assert result["passed"] == (run.returncode == 0)
    of_trials = f" of {result['trials']} trials, interleaved," if result["trials"] > 1 else ""
    assert header.endswith(f" ({result['samples']} samples{of_trials} in whole batches of {batch}; the "
                           f"pooled scale test detects a kernel-scale error of "
                           f"{result['detectable_scale']:.3g} with power 0.99)"), header
    for line in result["lines"]:
        assert line["text"] == f"{line['verdict']:<4}  {line['name']}: {line['detail']}"


def sample_hashes(cli, tmp_path, n, sigma, s, *extra):
    out = tmp_path / "h.csv"
    r = subprocess.run([cli, "sample", "--n", str(n), "--sigma", str(sigma), "--s", str(s), "--out", str(out),
                        *extra], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    table = np.genfromtxt(out, delimiter=",", names=True)
    return table["pitch"], table["shift"]


# ---- the same lines as `poslsh verify` -------------------------------------------------------


@pytest.mark.parametrize("n, sigma, s, extra", [
    (4096, 16.0, 8192, []),                                          # sound: every line passes
    (1048576, 4.0, 8192, ["--seed", "3"]),                           # the block-size law applies
    (4096, 16.0, 32768, ["--plant-defect", "pitch-cap-10sigma"]),    # FAILs the pitch law
    (4096, 16.0, 32768, ["--plant-defect", "repeat-lag-64"]),        # FAILs dispersion-lags
])
def test_verify_hashes_equals_cli(cli, tmp_path, n, sigma, s, extra):
    pitch, shift = sample_hashes(cli, tmp_path, n, sigma, s, *extra)
    result = poslsh.verify_hashes(pitch, shift, sigma, n)
    assert_same_as_cli(result, cli_verify(cli, "--hashes", tmp_path / "h.csv", n, sigma))
    assert result["passed"] == (not extra or extra[0] == "--seed")


def test_verify_hashes_options_and_trials_equal_cli(cli, tmp_path):
    pitch, shift = poslsh.draw_hashes(seed=4, trial=0, s=6000, sigma=5.0)
    # Shifts anywhere on the line: only shift mod pitch matters.
    shift = shift + np.arange(6000) % 7 * pitch - 3 * pitch
    trial = np.repeat([0, 1, 2], 2000)
    write_hashes(tmp_path / "t.csv", pitch, shift, trial)
    result = poslsh.verify_hashes(pitch, shift, 5.0, 1000, trial=trial, batch=8, points=10)
    run = cli_verify(cli, "--hashes", tmp_path / "t.csv", 1000, 5.0, "--batch", "8", "--points", "10")
    assert_same_as_cli(result, run, batch=8)
    assert result["trials"] == 3


def test_verify_hashes_catches_repeated_trials_like_cli(cli, tmp_path):
    # A sampler that ignores the trial index: every trial the same hashes.
    pitch, shift = poslsh.draw_hashes(seed=1, trial=0, s=4096, sigma=8.0)
    pitch, shift, trial = np.tile(pitch, 2), np.tile(shift, 2), np.repeat([0, 1], 4096)
    write_hashes(tmp_path / "r.csv", pitch, shift, trial)
    result = poslsh.verify_hashes(pitch, shift, 8.0, 4096, trial=trial)
    assert_same_as_cli(result, cli_verify(cli, "--hashes", tmp_path / "r.csv", 4096, 8.0))
    assert not result["passed"]
    assert poslsh.verify_hashes(pitch[:4096], shift[:4096], 8.0, 4096)["passed"]  # one trial: sound


@pytest.mark.parametrize("n, sigma, extra", [(300, 6.0, []), (300, 6.0, ["--plant-defect", "gamma3-pitch"])])
def test_verify_blocks_equals_cli(cli, tmp_path, n, sigma, extra):
    pitch, shift = sample_hashes(cli, tmp_path, n, sigma, 8192, *extra)
    starts = [poslsh.block_starts(p, u, n) for p, u in zip(pitch, shift)]
    write_blocks(tmp_path / "b.csv", starts)
    result = poslsh.verify_blocks(starts, sigma, n)
    assert_same_as_cli(result, cli_verify(cli, "--blocks", tmp_path / "b.csv", n, sigma))
    assert result["passed"] == (not extra)
    # Lists of Python ints read as arrays do.
    assert poslsh.verify_blocks([list(map(int, st)) for st in starts], sigma, n) == result


def test_alpha_is_the_family_wise_level():
    pitch, shift = poslsh.draw_hashes(seed=2, trial=0, s=4096, sigma=16.0)
    strict, loose = (poslsh.verify_hashes(pitch, shift, 16.0, 4096, alpha=a) for a in (1e-3, 0.5))
    # The co-binning lines get three quarters of alpha, a third of it each test.
    assert "(family-wise false alarm 0.00025 over 75 rows)" in strict["lines"][0]["detail"]
    assert "(family-wise false alarm 0.12 over 75 rows)" in loose["lines"][0]["detail"]


# ---- bad arguments ---------------------------------------------------------------------------

P, U = np.full(32, 4.0), np.zeros(32)
STARTS = [np.array([0, 3, 8])] * 32


@pytest.mark.parametrize("call, message", [
    (lambda: poslsh.verify_hashes(P, U, 2.0, 3), "n must be an integer >= 4 (got 3)"),
    (lambda: poslsh.verify_hashes(P, U, 2.0, 2 ** 50 + 1), "n must be at most 1125899906842624 (got 1125899906842625)"),
    (lambda: poslsh.verify_hashes(P, U, -1.0, 8), "sigma must be a finite number > 0 (got -1)"),
    (lambda: poslsh.verify_hashes(P, U, 2.0, 8, batch=0), "batch must be an integer >= 1 (got 0)"),
    (lambda: poslsh.verify_hashes(P, U, 2.0, 8, points=0), "points must be an integer >= 1 (got 0)"),
    (lambda: poslsh.verify_hashes(P, U, 2.0, 8, alpha=1.0), "alpha must be"),
    (lambda: poslsh.verify_hashes(np.r_[P, -1.0], np.r_[U, 0], 2.0, 8), "pitch must be finite and > 0 at every index (got -1 at index 32)"),
    (lambda: poslsh.verify_hashes(P, np.r_[U[:-1], np.nan], 2.0, 8), "shift must be finite at every index (got nan at index 31)"),
    (lambda: poslsh.verify_hashes(P, U[:5], 2.0, 8), "shift must have the length of pitch (32) (got 5 values)"),
    (lambda: poslsh.verify_hashes(P, U, 2.0, 8, trial=np.zeros(3, int)), "trial must hold one trial per sample"),
    (lambda: poslsh.verify_hashes(P, U, 2.0, 8, trial=np.r_[np.ones(16, int), np.zeros(16, int)]), "trial must not decrease"),
    (lambda: poslsh.verify_hashes(P, U, 2.0, 8, trial=np.r_[np.zeros(20, int), np.ones(12, int)]), "every trial needs the same number"),
    (lambda: poslsh.verify_hashes(P[:5], U[:5], 2.0, 8), "5 samples: the checks need at least one batch of 16"),
    (lambda: poslsh.verify_hashes(P, U, 2.0, 8, batch=64), "32 samples: the checks need at least one batch of 64"),
    (lambda: poslsh.verify_blocks(STARTS, 2.0, 9), "starts must each be a partition of [0, n = 9)"),
    (lambda: poslsh.verify_blocks([np.array([1, 3, 8])] * 4, 2.0, 8), "(got first value 1 in starts[0])"),
    (lambda: poslsh.verify_blocks(STARTS[:3] + [np.array([0, 5, 5, 8])], 2.0, 8), "(got 5 after 5 at index 2 in starts[3])"),
    (lambda: poslsh.verify_blocks([np.zeros((2, 2), int)], 2.0, 8), "starts[0] must be a 1-D array"),
    (lambda: poslsh.verify_blocks(STARTS, 2.0, 2 ** 53 + 1), "n must be at most 9007199254740992"),
])
def test_bad_arguments_raise_one_line_value_error(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_bad_types_raise_type_error():
    with pytest.raises(TypeError):
        poslsh.verify_blocks([np.array([0.0, 3.5, 8.0])], 2.0, 8)  # positions are integers
    with pytest.raises(TypeError):
        poslsh.verify_blocks("0,3,8", 2.0, 8)
    with pytest.raises(TypeError):
        poslsh.verify_hashes(P, U, 2.0, 8, trial=np.zeros(32))


# ---- lsh_attention on given hashes ------------------------------------------------------------


@pytest.mark.parametrize("causal", [False, True])
def test_lsh_attention_on_given_hashes_equals_drawn(causal):
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((2, 48, 4)) for _ in range(3))
    sigmas = [3.0, 9.0]
    drawn = poslsh.lsh_attention(q, k, v, sigmas, 5, seed=8, trial=1, causal=causal)
    # Heads share one draw, rescaled by each sigma: row h holds head h's hashes.
    rows = [poslsh.draw_hashes(8, 1, 5, sg) for sg in sigmas]
    given = poslsh.lsh_attention(q, k, v, pitch=np.array([r[0] for r in rows]),
                                 shift=np.array([r[1] for r in rows]), causal=causal)
    assert np.array_equal(given, drawn)
    one = poslsh.lsh_attention(q[0], k[0], v[0], pitch=rows[0][0], shift=rows[0][1], causal=causal)
    assert np.array_equal(one, drawn[0])
    # One row of hashes serves every head.
    shared = poslsh.lsh_attention(q, k, v, pitch=rows[0][0], shift=rows[0][1], causal=causal)
    assert np.array_equal(shared[0], drawn[0]) and not np.array_equal(shared[1], drawn[1])


Q = np.ones((16, 4))
H = (np.full(3, 4.0), np.zeros(3))


@pytest.mark.parametrize("call, message", [
    (lambda: poslsh.lsh_attention(Q, Q, Q, 2.0, 3, pitch=H[0], shift=H[1]), "s, seed, trial and independent_heads draw hashes"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, pitch=H[0], shift=H[1], seed=0), "s, seed, trial and independent_heads draw hashes"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, 2.0, pitch=H[0], shift=H[1]), "sigma: leave it out when giving pitch and shift"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, pitch=H[0]), "pitch and shift go together"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, 2.0), "s: give the number of hashes to draw"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, s=3), "sigma: the hashes drawn for s need the ALiBi scale"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, pitch=np.full((2, 3), 4.0), shift=np.zeros((2, 3))), "pitch and shift hold 2 rows of hashes (one per head) but the inputs have 1 head"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, pitch=np.full((2, 3), 4.0), shift=np.zeros((3, 2))), "shift must have the shape of pitch (2, 3)"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, pitch=np.full((1, 2, 3), 4.0), shift=np.zeros((1, 2, 3))), "pitch: expected shape (s,) or (H, s), got rank 3"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, pitch=np.array([4.0, -1.0]), shift=np.zeros(2)), "pitch must be a finite number > 0 (got -1)"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, pitch=np.array([4.0]), shift=np.array([5.0])), "shift must lie in [0, pitch]"),
    (lambda: poslsh.lsh_attention(Q, Q, Q, pitch=np.array([]), shift=np.array([])), "s >= 1 hashes"),
])
def test_lsh_attention_hash_arguments(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)


# ---- the PyTorch example and the user page --------------------------------------------------


def run_example(bug):
    env = {**os.environ, "POSLSH_EXAMPLE_BUG": bug}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE)],
                          capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.parametrize("bug, failing", [
    ("", []),
    ("exponential-pitch", ["test_sampler_passes_verify"]),
    ("zero-shift", ["test_sampler_passes_verify"]),
    ("block-edge-off-by-one", ["test_kernel_equals_poslsh_on_the_same_hashes[False]",
                               "test_kernel_equals_poslsh_on_the_same_hashes[True]"]),
])
def test_torch_example_passes_and_fails_on_each_planted_bug(bug, failing):
    r = run_example(bug)
    failed = sorted(re.findall(r"^FAILED \S+::(\S+)", r.stdout, re.M))
    assert (r.returncode, failed) == (1 if failing else 0, failing), r.stdout + r.stderr


def test_user_page_code_runs(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1, "expected one python block in docs/python-verify.md"
    env = {**os.environ, "PYTHONPATH": str(Path(poslsh.__file__).resolve().parents[1])}
    r = subprocess.run([sys.executable, "-c", blocks[0]], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "sampler: checks: 13 passed, 0 failed" in r.stdout, r.stdout
    assert re.search(r"kernel: max difference \S+ on the same hashes", r.stdout), r.stdout
