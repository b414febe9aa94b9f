"""The README's "Use from Python" snippet, run as it is written there.

The snippet says `PYTHONPATH=build/python /usr/bin/python3 - <<'EOF' ... EOF`
from the repository root; it runs here from a temporary directory whose
`build/python` points at the module under test, and its printed numbers are
compared with the module's own (so a README that drifts from the API fails).
"""
import os
import re
import subprocess
from pathlib import Path

import numpy as np

import poslsh

SOURCE_DIR = Path(os.environ.get("POSLSH_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def readme_python_snippet():
    text = (SOURCE_DIR / "README.md").read_text()
    section = text.split("## Use from Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "expected one sh block in README's 'Use from Python'"
    return blocks[0]


def test_readme_snippet_runs_as_written(tmp_path):
    snippet = readme_python_snippet()
    assert snippet.startswith("PYTHONPATH=build/python /usr/bin/python3 - <<'EOF'\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "python").symlink_to(Path(poslsh.__file__).resolve().parent.parent)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run(["bash", "-c", snippet], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3, run.stdout
    pitch, shift = poslsh.draw_hashes(seed=1, trial=0, s=8, sigma=16.0)
    starts = poslsh.block_starts(pitch[0], shift[0], n=64)
    assert lines[0] == str(starts)
    assert float(lines[1]) == poslsh.spectral_error(n=4096, sigma=16, s=8, seed=1)["value"]
    dtype, shape, err = re.fullmatch(r"(\S+) (\(.*\)) (\S+)", lines[2]).groups()
    assert (dtype, shape) == ("float32", "(2, 1024, 64)")
    assert np.isfinite(float(err)) and 0 < float(err) < 10
