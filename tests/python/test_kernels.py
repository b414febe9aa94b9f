"""poslsh.Kernel from Python (docs/MATH.md §10): the laplace kernel's hashes are
draw_hashes', a table's pitch law sums to k(t) exactly, a kernel's grids co-bin at
k(t) (counts within 6 binomial sd, 2e-9 two-sided per offset), a wrong shape is
caught, and a table outside the framework is a ValueError naming its first t."""
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import poslsh


def cobinned(kernel, t, hashes=100_000):
    pitch, shift = kernel.hashes(7, 0, hashes)
    a = 1000
    return np.mean(np.floor((a - shift) / pitch) == np.floor((a + t - shift) / pitch))


def deviation(kernel, expected, t):
    k = float(expected([t])[0])
    return abs(cobinned(kernel, t) - k) / np.sqrt(k * (1 - k) / 100_000)


def test_laplace_is_draw_hashes():
    p, s = poslsh.Kernel.laplace(16.0).hashes(3, 1, 20)
    q, u = poslsh.draw_hashes(3, 1, 20, 16.0)
    assert np.array_equal(p, q) and np.array_equal(s, u)


@pytest.mark.parametrize("kernel", [poslsh.Kernel.power_law(8.0, 1.5), poslsh.Kernel.stretched_exponential(8.0, 0.5),
                                    poslsh.Kernel.from_bias([0.0, -0.4, -0.7, -0.9, -1.0])])
def test_grids_cobin_at_the_kernel(kernel):
    for t in (1, 4, 16):
        assert deviation(kernel, kernel, t) < 6, (kernel.spec, t)


def test_a_wrong_shape_is_caught():
    wrong, right = poslsh.Kernel.power_law(8.0, 1.575), poslsh.Kernel.power_law(8.0, 1.5)
    assert max(deviation(wrong, right, t) for t in (8, 16, 32)) > 6


def test_a_tables_pitch_law_is_exact():
    k = [(1 + t / 4) ** -1.5 for t in range(200)]
    kernel = poslsh.Kernel.tabulated(k)
    p = np.array(kernel.pitch_probabilities)
    d = np.arange(1, len(p))
    for t in (0, 3, 50, 250):
        assert abs(p[-1] + np.sum(p[:-1] * np.clip(1 - t / d, 0, None)) - kernel([t])[0]) < 1e-12


def test_tables_outside_the_framework_are_refused():
    with pytest.raises(ValueError, match="t = 2 breaks it"):
        poslsh.Kernel.tabulated([1, 1, 1, 0, 0])
    assert poslsh.framework_distance([1, 1, 1, 0, 0]) == (2, pytest.approx(1 / 3))
    assert poslsh.framework_distance([1, 0.5, 0.25]) == (-1, 0.0)
    with pytest.raises(ValueError, match="beta"):
        poslsh.Kernel.stretched_exponential(8.0, 2.0)


CLI = os.environ.get("POSLSH_CLI")
PAGE = Path(os.environ.get("POSLSH_SOURCE_DIR", Path(__file__).resolve().parents[2])) / "docs" / "kernels.md"


@pytest.mark.skipif(not CLI, reason="POSLSH_CLI is set by ctest (python.pytest)")
def test_the_kernels_page_recipe_runs_as_written(tmp_path):
    """docs/kernels.md's commands, each as written (its learned bias file made here): every
    one exits 0, so `poslsh check` passed the kernel's co-binning table."""
    block = re.search(r"## Use\n\n```sh\n(.*?)```", PAGE.read_text(), re.S).group(1)
    (tmp_path / "learned_bias.txt").write_text("0 -0.4 -0.7 -0.9 -1.0\n")
    commands = [line.split("#")[0].split() for line in block.splitlines() if line.strip()]
    assert len(commands) == 4 and all(c[0] == "poslsh" for c in commands)
    out = {}
    for c in commands:
        r = subprocess.run([CLI, *c[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (c, r.stderr, r.stdout)
        out[c[1]] = r.stdout
    assert "PASS  cobin-scale[n=65536,sigma=8,middle,kernel=stretched-exponential]" in out["check"]


@pytest.mark.skipif(not CLI, reason="POSLSH_CLI is set by ctest (python.pytest)")
def test_the_frontier_recipe_runs_as_written(tmp_path):
    """docs/kernels.md's frontier commands, as written: the table is made and checked, and
    ALiBi's lines PASS (the window more accurate at every s, MATH 8's prediction)."""
    block = re.search(r"## Where LSH could pay: the frontier\n.*?```sh\n(.*?)```", PAGE.read_text(), re.S).group(1)
    commands = [line.split("#")[0].split() for line in block.splitlines() if line.strip()]
    assert [c[:2] for c in commands] == [["poslsh", "frontier"], ["poslsh", "check"]]
    for c in commands:
        r = subprocess.run([CLI, *c[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (c, r.stderr, r.stdout)
    for n in (4096, 16384):
        assert f"PASS  frontier[kernel=laplace,sigma=8,n={n}]" in r.stdout, r.stdout
