"""Tests of poslsh.lm (the language-model experiment) on tiny models: seconds.

Every check is deterministic (fixed seeds, no randomness at test time), so a
failure is a change of behaviour, not bad luck. Oracles: block masks built
position by position from poslsh.block_starts; poslsh.lsh_attention (the C++
ratio estimator) for the torch LSH attention; finite differences for its
gradients. Negative controls: a mask shifted by one position must not
approach exact ALiBi; a biased model must differ from the no-bias one.
"""
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="Debian's python3-torch is not installed")

import poslsh  # noqa: E402
from poslsh.lm import attention, corpus  # noqa: E402
from poslsh.lm.attention import Bias, alibi_bias, lsh_bias  # noqa: E402
from poslsh.lm.model import ByteTransformer, ModelShape, attend  # noqa: E402
from poslsh.lm.train import TrainConfig, deterministic, train  # noqa: E402

TINY = TrainConfig(ModelShape(layers=2, heads=2, width=16), context=16, batch=2, steps=6, warmup=2,
                   checkpoint_every=3)
SIGMAS = [2.0, 8.0]


@pytest.fixture(scope="module")
def text():
    """A deterministic stand-in training text (the corpus tests below use the real one)."""
    rng = np.random.default_rng(0)
    return rng.integers(97, 123, 4000).astype(np.uint8)


@pytest.fixture(autouse=True)
def one_thread():
    deterministic(1)


def block_mask_by_hand(pitch, shift, n):
    """The 0/1 mask of one hash: 1 where i and j lie in one block of block_starts."""
    starts = poslsh.block_starts(pitch, shift, n)
    m = np.zeros((n, n))
    for a, b in zip(starts[:-1], starts[1:]):
        m[a:b, a:b] = 1
    return m


def test_masks_are_the_block_starts_of_the_same_draw():
    n, s, seed, trial = 40, 5, 7, 3
    got = lsh_bias(seed, trial, s, SIGMAS, n)
    for h, sigma in enumerate(SIGMAS):
        pitch, shift = poslsh.draw_hashes(seed, trial, s, sigma)
        mean = sum(block_mask_by_hand(p, u, n) for p, u in zip(pitch, shift)) / s
        want = np.where(np.tril(np.ones((n, n))) * mean > 0, np.log(np.maximum(mean, 1e-300)), -np.inf)
        np.testing.assert_allclose(got[h].numpy(), want, rtol=1e-6, atol=1e-6)


def test_layer_and_step_pick_the_trial():
    layers, seed = 3, 11
    bias = Bias("lsh", SIGMAS, layers, s=4, seed=seed)
    for step, layer in [(0, 0), (2, 1), (5, 2)]:
        assert torch.equal(bias(24, layer, step), lsh_bias(seed, step * layers + layer, 4, SIGMAS, 24))
    assert not torch.equal(bias(24, 0, 1), bias(24, 0, 0))  # fresh hashes every step


def test_torch_lsh_attention_equals_poslsh_lsh_attention():
    heads, n, d, s, seed, trial = 2, 48, 8, 6, 5, 2
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(heads, n, d, generator=g, dtype=torch.float64) for _ in range(3))
    ours = attend(q, k, v, lsh_bias(seed, trial, s, SIGMAS, n, torch.float64))
    theirs = poslsh.lsh_attention(q.numpy(), k.numpy(), v.numpy(), SIGMAS, s, seed=seed, trial=trial,
                                  causal=True)
    np.testing.assert_allclose(ours.numpy(), theirs, rtol=0, atol=1e-12)


def relative_error(q, k, v, bias, exact):
    return ((attend(q, k, v, bias) - exact).norm() / exact.norm()).item()


def mean_error(q, k, v, s, make_bias, trials=6):
    exact = attend(q, k, v, alibi_bias(SIGMAS, q.shape[1]).double())
    return np.mean([relative_error(q, k, v, make_bias(t, s).double(), exact) for t in range(trials)])


def shifted_by_one(bias):
    """The defect: every key's mask entry read one position to the left."""
    out = torch.full_like(bias, float("-inf"))
    out[:, :, 1:] = bias[:, :, :-1]
    out[:, :, 0] = bias[:, :, 0]
    return out


def test_lsh_attention_approaches_exact_alibi_and_a_shifted_mask_does_not():
    heads, n, d = 2, 64, 8
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(heads, n, d, generator=g, dtype=torch.float64) for _ in range(3))
    right = lambda t, s: lsh_bias(0, t, s, SIGMAS, n)  # noqa: E731
    wrong = lambda t, s: shifted_by_one(lsh_bias(0, t, s, SIGMAS, n))  # noqa: E731
    e4, e256 = mean_error(q, k, v, 4, right), mean_error(q, k, v, 256, right)
    # Theory: the error falls like s^-1/2, a factor 8 from s = 4 to 256; ask for 4.
    assert e256 < e4 / 4, (e4, e256)
    w4, w256 = mean_error(q, k, v, 4, wrong), mean_error(q, k, v, 256, wrong)
    assert w256 > w4 / 2 and w256 > 5 * e256, (w4, w256, e256)


def test_a_fixed_model_under_lsh_approaches_its_exact_alibi_outputs():
    torch.manual_seed(3)
    model = ByteTransformer(ModelShape(layers=2, heads=2, width=16))
    with torch.no_grad():  # larger weights than the init's, so attention is far from uniform
        for p in model.parameters():
            p.mul_(8 if p.dim() >= 2 else 1)
    tokens = torch.randint(0, 256, (2, 48), generator=torch.Generator().manual_seed(4))
    exact = model(tokens, [alibi_bias(SIGMAS, 48)] * 2)

    def gap(s, defect=lambda b: b):
        return np.mean([(model(tokens, [defect(lsh_bias(9, 2 * t + l, s, SIGMAS, 48)) for l in range(2)])
                         - exact).norm().item() for t in range(6)])
    with torch.no_grad():
        g4, g256 = gap(4), gap(256)
        w256 = gap(256, shifted_by_one)
    assert g256 < g4 / 3, (g4, g256)
    assert w256 > 3 * g256, (w256, g256)


def test_nobias_has_no_bias_and_exact_has_alibi():
    n = 12
    nobias = Bias("nobias", SIGMAS, 1)(n, 0, 0)
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    assert torch.all(nobias[:, causal] == 0) and torch.all(nobias[:, ~causal] == -math.inf)
    exact = Bias("exact", SIGMAS, 1)(n, 0, 0)
    i, j = 9, 4
    assert exact[1, i, j].item() == pytest.approx(-(i - j) / SIGMAS[1])
    assert not torch.equal(exact, nobias)


def test_fixed_blocks_and_window_shapes():
    n = 20
    fixed = Bias("fixed", [2.0], 1)(n, 0, 0)[0]  # width round(2 sigma) = 4
    assert fixed[5, 4].item() == 0 and fixed[4, 3].item() == -math.inf
    window = Bias("window", [2.0], 1, window_s=1, train_context=n)
    w = window.half_widths[0]
    b = window(n, 0, 0)[0]
    assert b[10, 10 - w].item() == pytest.approx(-w / 2.0) and b[10, 10 - w - 1].item() == -math.inf


def test_gradients_of_lsh_attention_match_finite_differences():
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 10, 4, generator=g, dtype=torch.float64, requires_grad=True)
               for _ in range(3))
    bias = lsh_bias(3, 0, 3, SIGMAS, 10).double()
    assert torch.autograd.gradcheck(lambda a, b, c: attend(a, b, c, bias), (q, k, v))


def test_training_is_deterministic(text):
    bias = Bias("lsh", SIGMAS, TINY.shape.layers, s=2, seed=1)
    m1, l1 = train(text, bias, TINY, seed=4)
    m2, l2 = train(text, bias, TINY, seed=4)
    assert l1 == l2
    assert all(torch.equal(a, b) for a, b in zip(m1.state_dict().values(), m2.state_dict().values()))
    _, other = train(text, bias, TINY, seed=5)
    assert other != l1  # the seed matters (negative control)


class Interrupt(Bias):
    """The lsh bias, until draw `at`, where training is 'interrupted'."""

    def __init__(self, at):
        super().__init__("lsh", SIGMAS, TINY.shape.layers, s=2, seed=1)
        self.at = at

    def __call__(self, n, layer, draw):
        if draw == self.at:
            raise KeyboardInterrupt
        return super().__call__(n, layer, draw)


def test_interrupted_training_resumes_to_the_same_result(text, tmp_path):
    bias = Bias("lsh", SIGMAS, TINY.shape.layers, s=2, seed=1)
    whole, losses = train(text, bias, TINY, seed=4)
    checkpoint = tmp_path / "run.pt"
    with pytest.raises(KeyboardInterrupt):
        train(text, Interrupt(at=4), TINY, seed=4, checkpoint=checkpoint)  # checkpoint at step 3
    assert len(torch.load(checkpoint)["losses"]) == 3
    resumed, resumed_losses = train(text, bias, TINY, seed=4, checkpoint=checkpoint)
    assert resumed_losses == losses
    assert all(torch.equal(a, b) for a, b in zip(whole.state_dict().values(),
                                                  resumed.state_dict().values()))


def test_kjv_corpus_is_real_text_with_a_fixed_split():
    if shutil.which("bible") is None:
        pytest.skip("Debian's bible-kjv is not installed (scripts/deps installs it)")
    c = corpus.load(corpus.KJV)
    assert len(c.train) > 3_000_000 and len(c.validation) > 100_000 and len(c.test) > 100_000
    assert bytes(c.train[:40]).startswith(b"In the beginning God created")
    assert corpus.load(corpus.KJV).sha256 == c.sha256


def test_missing_corpus_names_the_package(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(corpus.CorpusError, match="Debian package bible-kjv"):
        corpus.load(corpus.KJV)
    with pytest.raises(corpus.CorpusError, match="readable text file"):
        corpus.load("/nonexistent/text.txt")


CLI = os.environ.get("POSLSH_CLI")
TINY_CLI = ["--layers", "1", "--heads", "2", "--width", "8", "--context", "16", "--batch", "2",
            "--steps", "3", "--warmup", "1", "--seeds", "1", "--s", "2", "--eval-lengths", "1,2",
            "--eval-batches", "2", "--eval-batch", "2", "--swap-s", "1,4", "--swap-trials", "3",
            "--variant", "exact,lsh", "--no-timing", "--quiet"]


def run_cli(args, cwd, **kw):
    return subprocess.run([CLI, "lm", *args], capture_output=True, text=True, cwd=cwd, timeout=300, **kw)


@pytest.mark.skipif(not CLI, reason="POSLSH_CLI is set by ctest (python.pytest)")
def test_cli_missing_corpus_fails_cleanly_and_writes_nothing(tmp_path):
    env = dict(os.environ, PATH="/nonexistent")
    r = run_cli(["--python", sys.executable, "--out", "lm.csv"], tmp_path, env=env)
    assert r.returncode == 2, r.stderr
    lines = [l for l in r.stderr.splitlines() if l]
    assert len(lines) == 1 and "bible-kjv" in lines[0], r.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not CLI or shutil.which("bible") is None, reason="needs POSLSH_CLI and bible-kjv")
def test_cli_table_is_the_same_on_one_and_two_threads(tmp_path):
    for threads in ("1", "2"):
        r = run_cli([*TINY_CLI, "--threads", threads, "--out", f"t{threads}.csv"], tmp_path)
        assert r.returncode in (0, 1), r.stderr
    assert (tmp_path / "t1.csv").read_bytes() == (tmp_path / "t2.csv").read_bytes()
    assert (tmp_path / "t1_qkv" / "seed0" / "layer0" / "q.npy").exists()
    assert not (tmp_path / "t1.checkpoints").exists()
    table = (tmp_path / "t1.csv").read_text()
    assert "lsh,2,0,3,exact," in table and "exact,,0,3,lsh,4,2,0,1," in table
    # The exported Q, K, V run through `poslsh attention --qkv` and its checks.
    r = subprocess.run([CLI, "attention", "--qkv", str(tmp_path / "t1_qkv" / "seed0" / "layer0"),
                        "--alibi-heads", "2", "--causal", "--s", "1,4", "--trials", "3", "--quiet",
                        "--out", str(tmp_path / "att.csv")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([CLI, "check", str(tmp_path / "att.csv")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "0 failed" in r.stdout, r.stdout
