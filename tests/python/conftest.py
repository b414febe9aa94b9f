"""Fixtures shared by the Python tests."""
import os
from pathlib import Path

import poslsh
import pytest


@pytest.fixture(scope="session")
def cli():
    """The poslsh binary: $POSLSH_CLI, or bin/poslsh of the build tree the module came from."""
    path = os.environ.get("POSLSH_CLI") or str(Path(poslsh.__file__).resolve().parents[1] / "bin" / "poslsh")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no poslsh CLI at {path}: set POSLSH_CLI to the built binary")
    return path
