#!/usr/bin/env python3
"""Draws figures one after another in one interpreter, as `poslsh reproduce`
asks: each request, a line [SCRIPT, CSV, PNG] (JSON) on file descriptor 3, is
`SCRIPT.py CSV -o PNG` run in this process; the reply is the exit code that
command would have had (0, 1 for an error or a sys.exit message, 2 for bad
arguments). Importing numpy and matplotlib costs more than most figures, so
reproduce keeps one of these per core instead of one process per figure.
Each figure starts with no figure open and the style this process started
with, as a process of its own would."""
import importlib
import json
import os
import socket
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def exit_code(e: SystemExit) -> int:
    """What the interpreter would exit with: a message is printed, and is 1."""
    if e.code is None or isinstance(e.code, int):
        return e.code or 0
    print(e.code, file=sys.stderr)
    return 1


def draw(script: str, csv: str, png: str) -> int:
    plt.close("all")
    try:
        with matplotlib.rc_context():  # the script's style changes end with it
            importlib.import_module(script).main([csv, "-o", png])
        return 0
    except SystemExit as e:
        return exit_code(e)
    except Exception:  # noqa: BLE001 (a failed figure is its exit code, as a process's)
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def main() -> int:
    channel = socket.socket(fileno=3)
    try:
        for line in channel.makefile("r", encoding="utf-8"):
            channel.sendall(f"{draw(*json.loads(line))}\n".encode())
    except KeyboardInterrupt:
        return 130
    except OSError:  # reproduce is gone: nobody to reply to
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
