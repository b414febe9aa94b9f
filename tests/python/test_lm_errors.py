"""Exit codes of `python3 -m poslsh.lm` by cause (python/poslsh/lm/errors.py).

The caller's mistake is a UsageError: exit 2, its one line as RESULT. Any
other ValueError (numpy's, torch's, a broken invariant) is a bug: exit 3 with
the traceback on stderr, never reported as the caller's mistake. Negative
controls: a ValueError raised from numpy must not exit 2 (the old mapping of
every ValueError did), and the scan for plain `raise ValueError(` in the
package must find one planted in a text.
"""
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from poslsh.lm import __main__ as lm_main
from poslsh.lm.errors import UsageError

PACKAGE = pathlib.Path(lm_main.__file__).resolve().parent


MISSING_CORPUS = '{"--corpus": "/nonexistent/text.txt"}'


def test_a_usage_error_exits_2_with_its_line_as_result(tmp_path):
    result = tmp_path / "result"
    assert lm_main.main(["describe", MISSING_CORPUS, str(result)]) == 2
    assert "readable text file" in result.read_text()
    assert lm_main.main(["describe", '{"--steps": "many"}', str(result)]) == 2
    assert result.read_text() == "--steps expects an integer (got 'many')"


def test_an_internal_value_error_is_a_bug_not_a_usage_error(tmp_path, monkeypatch, capsys):
    def broken(arg):
        return str(np.zeros(-1))  # numpy: ValueError("negative dimensions are not allowed")
    monkeypatch.setitem(lm_main.MODES, "describe", broken)
    result = tmp_path / "result"
    assert lm_main.main(["describe", "{}", str(result)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "negative dimensions" in err and "internal error" in err, err
    assert not result.exists()  # nothing the CLI would read as the caller's mistake


def test_usage_errors_are_value_errors_for_direct_callers():
    from poslsh.lm import corpus
    assert issubclass(UsageError, ValueError) and issubclass(corpus.CorpusError, UsageError)


def test_the_package_checks_raise_usage_errors():
    pytest.importorskip("torch", reason="Debian's python3-torch is not installed")
    from poslsh.lm.config import LmConfig
    from poslsh.lm.model import ModelShape
    with pytest.raises(UsageError, match="sigmas"):
        LmConfig(heads=2, width=8, sigmas=(1.0,))
    with pytest.raises(UsageError, match="multiple of heads"):
        ModelShape(layers=1, heads=3, width=8)


PLAIN_VALUE_ERROR = re.compile(r"\braise\s+ValueError\(")


def plain_value_errors(text):
    return [line for line in text.splitlines() if PLAIN_VALUE_ERROR.search(line)]


def test_no_check_of_the_package_raises_a_plain_value_error():
    # A check that raised ValueError would now exit 3, as a bug: every check
    # of the caller's input raises UsageError.
    assert plain_value_errors('    raise ValueError(f"lm: x must be >= 1")\n') != []  # control
    found = {p.name: plain_value_errors(p.read_text()) for p in sorted(PACKAGE.glob("*.py"))}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_module_exits_2_as_a_process(tmp_path):
    result = tmp_path / "result"
    r = subprocess.run([sys.executable, "-m", "poslsh.lm", "describe", MISSING_CORPUS, str(result)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "readable text file" in result.read_text()
