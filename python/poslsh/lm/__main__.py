"""The two entry points `poslsh lm` runs (one process each):

    python3 -m poslsh.lm corpus NAME RESULT      RESULT: "sha256 train validation test" (bytes)
    python3 -m poslsh.lm cell SPEC_JSON RESULT   RESULT: the cell's rows, tab-separated, then
                                                 "seconds<TAB>training time<TAB>seconds per step"
    python3 -m poslsh.lm bench SPEC_JSON RESULT  RESULT: `poslsh bench lm`'s table (CSV);
                                                 progress on stderr

RESULT is written whole (a temporary file renamed) only on success. Exit
codes, as the C++ CLI's (src/runner/cli_errors.h): unusable input (a missing
corpus, a bad key or setting: a `UsageError`, errors.py) exits 2 with its
one-line message as RESULT's text, which the CLI reports; any other
ValueError, TypeError, LookupError or AssertionError is a bug in poslsh (an
unexpected value from numpy or torch, a spec the CLI should not have written)
and exits 3 with the traceback on stderr; anything else (memory, I/O) keeps
Python's exit 1 and traceback; an interruption exits 130, the cell's
checkpoint keeping its last saved step.
"""
import dataclasses
import json
import os
import sys
import traceback

from . import corpus
from .errors import UsageError

# The exception types that, outside UsageError, mean poslsh itself is wrong
# (the analogue of the CLI's std::logic_error, exit 3).
BUGS = (ValueError, TypeError, LookupError, AssertionError)


def field(value) -> str:
    return "" if value is None else repr(value) if isinstance(value, float) else str(value)


def write(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def corpus_result(name: str) -> str:
    c = corpus.load(name)
    return f"{c.sha256} {len(c.train)} {len(c.validation)} {len(c.test)}\n"


def cell_result(spec_json: str) -> str:
    from .cell import CellSpec, run  # torch is imported only for a cell
    spec = json.loads(spec_json)
    names = {f.name for f in dataclasses.fields(CellSpec)}
    unknown, missing = sorted(set(spec) - names), sorted(names - set(spec))
    if unknown or missing:
        raise UsageError(f"lm: unknown cell keys {unknown}, missing cell keys {missing}")
    rows, seconds, per_step = run(CellSpec(**spec))
    return ("".join("\t".join(field(v) for v in row) + "\n" for row in rows)
            + f"seconds\t{seconds!r}\t{field(per_step)}\n")


def bench_result(spec_json: str) -> str:
    from .bench import BenchSpec, run
    return run(BenchSpec(**json.loads(spec_json)),
               lambda line: print(f"bench lm: {line}", file=sys.stderr, flush=True))


MODES = {"corpus": corpus_result, "cell": cell_result, "bench": bench_result}


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] not in MODES:
        print("usage: python3 -m poslsh.lm corpus NAME RESULT | cell SPEC_JSON RESULT | bench SPEC_JSON RESULT",
              file=sys.stderr)
        return 2
    mode, arg, result = argv
    try:
        text = MODES[mode](arg)
    except UsageError as e:  # CorpusError included
        write(result, str(e))
        return 2
    except BUGS:
        traceback.print_exc()
        print(f"lm: internal error in `python3 -m poslsh.lm {mode}` (a bug in poslsh, not in "
              "your input: please report it with the traceback above and the output of "
              "`poslsh --version`)", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    write(result, text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
