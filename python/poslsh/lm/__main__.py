"""The entry points `poslsh lm` and `poslsh bench lm` run (one process each):

    python3 -m poslsh.lm options lm|bench RESULT   RESULT: the command's options (JSON list:
                                                   name, type, list, default, help)
    python3 -m poslsh.lm describe GIVEN RESULT     RESULT: the columns and cells of the options
                                                   GIVEN ({"--name": text or [texts]}, JSON)
    python3 -m poslsh.lm cell REQUEST RESULT       RESULT: {"rows": [...]} of cell REQUEST["cell"]
                                                   (REQUEST: given, cell, table, work, progress)
    python3 -m poslsh.lm bench GIVEN RESULT        RESULT: `poslsh bench lm`'s table (CSV);
                                                   progress on stderr
    python3 -m poslsh.lm serve                     the modes above, one request after another:
                                                   a line [MODE, ARG, RESULT] (JSON) on file
                                                   descriptor 3, the exit code's line back

`serve` is how `poslsh lm` runs its cells: one interpreter per worker
thread, so that torch is imported once per run, not once per cell (it cost
more than a small cell's training). Every cell seeds what it draws, so a
cell's rows do not depend on the cells the process ran before it.

The options are parsed and checked in config.py, once (LmConfig,
BenchConfig); the cells and rows are experiment.py's. RESULT is written
whole (a temporary file renamed) only on success. Exit codes, as the C++
CLI's (src/runner/cli_errors.h): unusable input (a missing corpus, a bad
option: a `UsageError`, errors.py) exits 2 with its one-line message as
RESULT's text, which the CLI reports; any other ValueError, TypeError,
LookupError or AssertionError is a bug in poslsh (an unexpected value from
numpy or torch, a request the CLI should not have written) and exits 3 with
the traceback on stderr; anything else (memory, I/O) keeps Python's exit 1
and traceback; an interruption exits 130, the cell's checkpoint keeping its
last saved step.
"""
import json
import os
import sys
import traceback

from . import config, experiment
from .errors import UsageError

# The exception types that, outside UsageError, mean poslsh itself is wrong
# (the analogue of the CLI's std::logic_error, exit 3).
BUGS = (ValueError, TypeError, LookupError, AssertionError)
COMMANDS = {"lm": config.LmConfig, "bench": config.BenchConfig}


def write(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def as_json(value) -> str:
    """numpy's integers travel as Python's."""
    return json.dumps(value, default=lambda o: o.item() if hasattr(o, "item") else str(o))


def options_result(command: str) -> str:
    if command not in COMMANDS:
        raise UsageError(f"lm: options of {', '.join(COMMANDS)} (got '{command}')")
    return as_json(config.options_table(COMMANDS[command]))


def describe_result(given: str) -> str:
    return as_json(experiment.describe(config.from_given(config.LmConfig, json.loads(given))))


def cell_result(request_json: str) -> str:
    r = json.loads(request_json)
    c = config.from_given(config.LmConfig, r["given"])
    return as_json({"rows": experiment.cell_rows(c, r["cell"], r["table"], r["work"], r["progress"])})


def bench_result(given: str) -> str:
    from .bench import run  # torch is imported only for a bench
    return run(config.from_given(config.BenchConfig, json.loads(given)),
               lambda line: print(f"bench lm: {line}", file=sys.stderr, flush=True))


MODES = {"options": options_result, "describe": describe_result, "cell": cell_result,
         "bench": bench_result}


def run(mode: str, arg: str, result: str) -> int:
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


def serve() -> int:
    """Requests on file descriptor 3 until its end; an interruption ends the
    process (exit 130) after its reply. The channel is left to the process's
    exit to close: a buffered writer would flush again into a closed socket."""
    import socket
    channel = socket.socket(fileno=3)
    try:
        for line in channel.makefile("r", encoding="utf-8"):
            code = run(*json.loads(line))
            channel.sendall(f"{code}\n".encode())
            if code == 130:
                return code
    except KeyboardInterrupt:  # between requests
        return 130
    except OSError:  # the parent is gone (killed): nobody to reply to
        return 1
    return 0


def main(argv: list[str]) -> int:
    if argv == ["serve"]:
        return serve()
    if len(argv) != 3 or argv[0] not in MODES:
        print("usage: python3 -m poslsh.lm options|describe|cell|bench ARG RESULT, or serve",
              file=sys.stderr)
        return 2
    return run(*argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
