"""docs/python-api.md's examples, run as written: each ```python block in a
fresh namespace, so a page that drifts from the API (a renamed argument, a
shape or dtype that changed, a typical value that moved) fails here."""
import os
import re
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("POSLSH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
PAGE = SOURCE_DIR / "docs" / "python-api.md"


def examples():
    text = PAGE.read_text()
    sections = re.split(r"\n## ", text)
    out = []
    for section in sections[1:]:
        title = section.splitlines()[0]
        out += [(title, block) for block in re.findall(r"```python\n(.*?)```", section, re.S)]
    return out


def test_every_section_has_an_example():
    titles = {t for t, _ in examples()}
    assert {"Hashes and blocks", "Attention", "Use it in your model"} <= titles


@pytest.mark.parametrize("title,code", examples(), ids=[t for t, _ in examples()])
def test_example_runs_as_written(title, code):
    if "torch" in code:
        pytest.importorskip("torch")
    exec(compile(code, f"python-api.md: {title}", "exec"), {})


def test_a_wrong_example_fails():
    """The runner can fail: an example with a false assertion raises."""
    with pytest.raises(AssertionError):
        exec("import poslsh\nassert poslsh.alibi_sigmas(4) == [1.0]", {})
