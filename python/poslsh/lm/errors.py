"""Whose fault an error of the language models is, as in the C++ CLI
(src/runner/cli_errors.h, docs/ARCHITECTURE.md "Errors").

The caller's mistake (a bad setting, cell key or value, an unusable corpus)
is a `UsageError`: `python3 -m poslsh.lm` writes its one line as RESULT and
exits 2, which `poslsh lm` reports as bad input. Any other ValueError (from
numpy, torch, or a broken invariant of this package) is a bug: exit 3 with
the traceback on stderr, never worded as the caller's mistake.
"""


class UsageError(ValueError):
    """Unusable input from the caller. A ValueError, so that code calling the
    package's functions directly may catch either."""
