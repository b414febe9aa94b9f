"""`python3 -m poslsh.lm serve`, the interpreter `poslsh lm` keeps per worker thread:
one process answers request after request on file descriptor 3 with each request's
exit code, as `python3 -m poslsh.lm MODE ARG RESULT` would exit, and ends at the end
of its input. No torch needed (options and describe requests)."""
import json
import os
import socket
import subprocess
import sys


def start_server():
    parent, child = socket.socketpair()
    proc = subprocess.Popen([sys.executable, "-m", "poslsh.lm", "serve"], pass_fds=[3],
                            preexec_fn=lambda: os.dup2(child.fileno(), 3))
    child.close()
    return proc, parent, parent.makefile("r", encoding="utf-8")


def ask(channel, replies, mode, arg, result):
    channel.sendall((json.dumps([mode, arg, str(result)]) + "\n").encode())
    return int(replies.readline())


def test_one_process_answers_every_request_with_its_exit_code(tmp_path):
    proc, channel, replies = start_server()
    assert ask(channel, replies, "options", "lm", tmp_path / "a.json") == 0
    assert json.loads((tmp_path / "a.json").read_text())[0]["name"] == "--corpus"
    assert ask(channel, replies, "describe", json.dumps({"--s": ["0"]}), tmp_path / "b") == 2
    assert "--s" in (tmp_path / "b").read_text()  # the one-line reason, as the CLI reports it
    assert ask(channel, replies, "describe", "{}", tmp_path / "c.json") == 0
    assert "columns" in json.loads((tmp_path / "c.json").read_text())
    assert ask(channel, replies, "no-such-mode", "", tmp_path / "d") == 3  # a bug: exit 3
    replies.close()
    channel.close()
    assert proc.wait(timeout=30) == 0


def test_the_process_ends_at_the_end_of_its_input_without_a_request():
    proc, channel, replies = start_server()
    replies.close()
    channel.close()
    assert proc.wait(timeout=30) == 0
