"""`pip install --no-build-isolation .` into a fresh virtual environment
(--system-site-packages, for Debian's numpy and torch), offline, then the
README's Python snippet with that environment's interpreter and no
PYTHONPATH: the package a user installs, not the build tree.

The install reuses this build's CMake tree (POSLSH_BUILD_DIR, set by ctest):
pip runs setup.py, which brings the target poslsh_python up to date there
(nothing to do) and copies the extension; a user's install builds in
build/pip instead."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_readme import SOURCE_DIR, readme_python_snippet

BUILD = os.environ.get("POSLSH_BUILD_DIR")


@pytest.mark.skipif(not BUILD, reason="POSLSH_BUILD_DIR is set by ctest (python.pytest) only")
def test_pip_install_into_a_fresh_venv_then_the_readme_snippet(tmp_path):
    venv = tmp_path / "venv"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        pytest.fail(f"python3 -m venv failed (Debian's python3-venv installed?): {r.stderr}")
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([str(python), "-m", "pip", "install", "--no-build-isolation", "--no-index", "-q",
                        str(SOURCE_DIR)], capture_output=True, text=True, timeout=600,
                       env=dict(env, POSLSH_BUILD_DIR=BUILD), cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    code = re.fullmatch(r"PYTHONPATH=build/python /usr/bin/python3 - <<'EOF'\n(.*)EOF\n",
                        readme_python_snippet(), re.S).group(1)
    r = subprocess.run([str(python), "-c", "import poslsh; print(poslsh.__file__)\n" + code],
                       capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    installed = Path(r.stdout.splitlines()[0])
    assert installed.is_relative_to(venv), installed  # the venv's copy, not the build tree
    assert (installed.parent / "_core.pyi").exists() and (installed.parent / "py.typed").exists()
    assert (installed.parent / "lm" / "cell.py").exists()
    assert len(r.stdout.splitlines()) == 4, r.stdout
