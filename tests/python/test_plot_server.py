"""plots/serve.py, the interpreter `poslsh reproduce` keeps per core to draw its
figures: each request is a figure script run in that process, answered with the
exit code the script would have had alone (0 drawn, 1 failed or a sys.exit message,
2 bad arguments), and a figure's style changes do not reach the next figure."""
import json
import os
import pathlib
import socket
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = "n,sigma,s,trial,spectral_error,spectral_bound,max_error,max_bound\n"


def convergence_table(path):
    rows = [f"{n},4,{s},0,{1 / s ** 0.5},{10 / s ** 0.5},{0.5 / s ** 0.5},{2 / s ** 0.5}"
            for n in (256, 1024) for s in (1, 4, 16)]
    path.write_text(HEADER + "\n".join(rows) + "\n")
    return path


def draw_all(requests):
    parent, child = socket.socketpair()
    proc = subprocess.Popen([sys.executable, str(ROOT / "plots" / "serve.py")], pass_fds=[3],
                            preexec_fn=lambda: os.dup2(child.fileno(), 3),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    child.close()
    replies = parent.makefile("r", encoding="utf-8")
    codes = []
    for r in requests:
        parent.sendall((json.dumps([str(x) for x in r]) + "\n").encode())
        codes.append(int(replies.readline()))
    replies.close()
    parent.close()
    _, err = proc.communicate(timeout=60)
    return codes, proc.returncode, err


def test_each_figure_gets_the_code_it_would_have_alone(tmp_path):
    table = convergence_table(tmp_path / "c.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text(HEADER)
    codes, rc, err = draw_all([
        ("convergence_error_vs_s", table, tmp_path / "a.png"),
        ("convergence_error_vs_s", empty, tmp_path / "b.png"),          # sys.exit("... no rows")
        ("convergence_error_vs_s", tmp_path / "none.csv", tmp_path / "c.png"),
        ("convergence_error_vs_s", "--no-such-flag", tmp_path / "d.png"),  # argparse: 2
        ("no_such_script", table, tmp_path / "e.png"),                  # ImportError: 1
        ("convergence_error_vs_s", table, tmp_path / "f.png"),          # still serving
    ])
    assert codes == [0, 1, 1, 2, 1, 0] and rc == 0
    assert "has no rows" in err and "cannot read" in err and "No module named" in err
    assert (tmp_path / "a.png").stat().st_size > 0 and (tmp_path / "a.caption.txt").exists()
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "f.png").read_bytes()
    assert not (tmp_path / "b.png").exists()


def test_a_figure_drawn_after_others_equals_one_drawn_alone(tmp_path):
    table = convergence_table(tmp_path / "c.csv")
    alone = subprocess.run([sys.executable, str(ROOT / "plots" / "convergence_constant_vs_n.py"),
                            str(table), "-o", str(tmp_path / "alone.png")],
                           capture_output=True, check=True)
    assert alone.returncode == 0
    codes, _, _ = draw_all([("convergence_error_vs_s", table, tmp_path / "first.png"),
                            ("convergence_constant_vs_n", table, tmp_path / "after.png")])
    assert codes == [0, 0]
    assert (tmp_path / "after.svg").read_bytes() == (tmp_path / "alone.svg").read_bytes()
