"""ctest python.pytest: runs `pytest -q` on this directory, or fails saying
what is missing when pytest cannot be imported (never a silent pass).

Environment (set by python/CMakeLists.txt): PYTHONPATH=<build>/python (the
module), POSLSH_CLI (the poslsh binary), POSLSH_SOURCE_DIR.
"""
import os
import sys

try:
    import pytest
except ImportError as e:
    sys.exit(f"python.pytest: cannot import pytest with {sys.executable} ({e}); "
             "install Debian's python3-pytest (apt-get install python3-pytest)")

here = os.path.dirname(os.path.abspath(__file__))
# -p no:cacheprovider: no .pytest_cache written into the source tree.
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", here] + sys.argv[1:]))
