"""Tests of the language models' measuring instruments: the byte n-gram
baselines (poslsh.lm.ngram), the context-use probe (attention cut to the last
w positions at evaluation, poslsh.lm.attention.CutBias) and the sinusoidal
control of claim 4 (poslsh.lm.model's absolute positions).

Oracles: Witten-Bell probabilities written out by hand on "abab" and a
closed-form order 0 on a known histogram; a model whose attention returns
each query's own value (what a cut to w = 1 must equal); the uncut model (a
cut at w >= n). Negative controls: a mis-normalised and an unsmoothed n-gram
model must fail the normalisation check; a cut at w = 2 must differ from
w = 1; a model without positions must not see a permutation of them.
"""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="Debian's python3-torch is not installed")

from poslsh.lm import cell, model as model_module, ngram  # noqa: E402
from poslsh.lm.attention import Bias, CutBias  # noqa: E402
from poslsh.lm.evaluate import batch_bits, evaluation_starts  # noqa: E402
from poslsh.lm.model import ByteTransformer, ModelShape  # noqa: E402
from poslsh.lm.train import deterministic, windows  # noqa: E402

SIGMAS = [2.0, 8.0]


@pytest.fixture(autouse=True)
def one_thread():
    deterministic(1)


def as_bytes(text):
    return np.frombuffer(text, dtype=np.uint8)


def prob(model, context, target, k):
    return model.distribution(context, k)[target]


def test_order_zero_is_the_byte_histogram_interpolated_with_uniform():
    m = ngram.WittenBell(as_bytes(b"aaabbc"), 0)
    n, types = 6, 3  # a: 3, b: 2, c: 1
    for byte, count in ((b"a", 3), (b"b", 2), (b"c", 1), (b"z", 0)):
        want = (count + types / 256) / (n + types)
        assert prob(m, b"", ord(byte), 0) == pytest.approx(want, rel=1e-15)


def test_witten_bell_by_hand_on_abab():
    m = ngram.WittenBell(as_bytes(b"abab"), 2)
    p0 = {w: (c + 2 / 256) / (4 + 2) for w, c in ((ord("a"), 2), (ord("b"), 2))}
    p0_other = (2 / 256) / 6
    # order 1: a is followed by b twice (one type), b by a once (one type)
    p1_b_after_a = (2 + 1 * p0[ord("b")]) / (2 + 1)
    p1_a_after_a = (0 + 1 * p0[ord("a")]) / (2 + 1)
    p1_a_after_b = (1 + 1 * p0[ord("a")]) / (1 + 1)
    assert prob(m, b"a", ord("b"), 1) == pytest.approx(p1_b_after_a, rel=1e-15)
    assert prob(m, b"a", ord("a"), 1) == pytest.approx(p1_a_after_a, rel=1e-15)
    assert prob(m, b"b", ord("a"), 1) == pytest.approx(p1_a_after_b, rel=1e-15)
    assert prob(m, b"c", ord("x"), 1) == pytest.approx(p0_other, rel=1e-15)  # unseen context: order 0
    # order 2: "ab" is followed by a once, "ba" by b once
    assert prob(m, b"ab", ord("a"), 2) == pytest.approx((1 + p1_a_after_b) / 2, rel=1e-15)
    assert prob(m, b"ab", ord("b"), 2) == pytest.approx((0 + prob(m, b"b", ord("b"), 1)) / 2, rel=1e-15)
    assert prob(m, b"zb", ord("a"), 2) == pytest.approx(p1_a_after_b, rel=1e-15)


def normalisation_error(m, rng, contexts=40):
    """The largest |sum_w P_k(w | h) - 1| over random contexts (some seen, some not) and
    every order, and the smallest probability given to any byte."""
    worst, smallest = 0.0, 1.0
    for _ in range(contexts):
        h = bytes(rng.integers(97, 101 if rng.random() < 0.7 else 256, m.order).astype(np.uint8))
        for k in range(m.order + 1):
            p = m.distribution(h, k)
            worst, smallest = max(worst, abs(p.sum() - 1)), min(smallest, p.min())
    return worst, smallest


@pytest.fixture(scope="module")
def random_text():
    return np.random.default_rng(3).integers(97, 101, 3000).astype(np.uint8)


def test_probabilities_sum_to_one_over_the_256_bytes(random_text):
    worst, smallest = normalisation_error(ngram.WittenBell(random_text, 4), np.random.default_rng(4))
    assert worst < 1e-12 and smallest > 0


def test_a_mis_normalised_or_unsmoothed_model_is_caught(random_text):
    rng = np.random.default_rng(4)
    bad = ngram.WittenBell(random_text, 3)
    bad.counts[2] = bad.counts[2].__class__(bad.counts[2].grams, bad.counts[2].gram_counts,
                                            bad.counts[2].contexts, bad.counts[2].context_counts + 1,
                                            bad.counts[2].context_types)  # c(h) + 1 + T(h) below
    assert normalisation_error(bad, rng)[0] > 1e-3
    raw = ngram.WittenBell(random_text, 3)
    c = raw.counts[3]
    raw.counts[3] = c.__class__(c.grams, c.gram_counts, c.contexts, c.context_counts, 0 * c.context_types)
    assert normalisation_error(raw, rng)[1] == 0  # maximum likelihood: unseen bytes get nothing


def test_order_zero_scores_windows_without_context(random_text):
    m = ngram.WittenBell(random_text, 0)
    data = random_text[:100]
    bits = ngram.window_bits(m, data, np.array([[0, 5]]), 8)
    assert bits.shape == (1, 1, 2, 8)
    assert bits[0, 0, 1, 0] == pytest.approx(-math.log2(prob(m, b"", data[6], 0)), rel=1e-12)


def test_window_bits_use_only_the_window_before_each_target(random_text):
    m = ngram.WittenBell(random_text, 3)
    data = np.random.default_rng(5).integers(97, 101, 200).astype(np.uint8)
    starts = np.array([[7, 40]])
    bits = ngram.window_bits(m, data, starts, 10)
    for b, start in enumerate(starts[0]):
        for t in range(10):
            window = data[start:start + t + 1].tobytes()  # the bytes the model sees
            for k in range(4):
                used = min(k, t + 1)
                want = -math.log2(prob(m, window[len(window) - used:] if used else b"", data[start + t + 1], used))
                assert bits[k, 0, b, t] == pytest.approx(want, rel=1e-12)


def test_a_deterministic_fit_of_a_few_megabytes_in_seconds():
    data = np.random.default_rng(6).integers(0, 256, 1 << 20).astype(np.uint8)
    a, b = ngram.WittenBell(data, 5), ngram.WittenBell(data, 5)
    starts = evaluation_starts(data, 64, 2, 4)
    assert np.array_equal(ngram.window_bits(a, data, starts, 64), ngram.window_bits(b, data, starts, 64))


def tiny_model(variant="exact", width=8, seed=0):
    torch.manual_seed(seed)
    positions = "sinusoidal" if variant == "sinusoidal" else "none"
    m = ByteTransformer(ModelShape(layers=2, heads=2, width=width, positions=positions))
    with torch.no_grad():  # weights far from uniform attention, so that cuts matter
        for p in m.parameters():
            p.mul_(20)
    return m.eval()


def bias_of(variant):
    return Bias(variant, SIGMAS, 2, s=2 if variant in ("lsh", "window", "fixed") else 0,
                seed=1, train_context=32)


@pytest.mark.parametrize("variant", ["exact", "lsh", "nobias", "window", "fixed-block"])
@pytest.mark.parametrize("n", [32, 200])
def test_a_cut_at_w_at_least_n_is_the_full_loss(variant, n):
    data = np.random.default_rng(7).integers(97, 123, 2000).astype(np.uint8)
    m, bias = tiny_model(), bias_of(variant)
    full = batch_bits(m, bias, data, n, 2, 2)
    for w in (n, n + 5):
        assert np.array_equal(batch_bits(m, CutBias(bias, w), data, n, 2, 2), full)
    assert not np.array_equal(batch_bits(m, CutBias(bias, 3), data, n, 2, 2), full)


@pytest.mark.parametrize("variant", ["exact", "lsh", "nobias", "window"])
@pytest.mark.parametrize("n", [32, 200])
def test_a_cut_at_one_is_a_model_that_attends_only_to_itself(variant, n, monkeypatch):
    data = np.random.default_rng(8).integers(97, 123, 2000).astype(np.uint8)
    m, bias = tiny_model(), bias_of(variant)
    x, _ = windows(data, evaluation_starts(data, n, 1, 2)[0], n)
    with torch.no_grad():
        cut = m(x, [CutBias(bias, 1)(n, layer, 0) for layer in range(2)])
        two = m(x, [CutBias(bias, 2)(n, layer, 0) for layer in range(2)])
        monkeypatch.setattr(model_module, "attend", lambda q, k, v, b: v)  # each query its own value
        own = m(x, [bias(n, layer, 0) for layer in range(2)])
    torch.testing.assert_close(cut, own, rtol=1e-6, atol=1e-6)
    assert not torch.allclose(two, own, rtol=1e-3, atol=1e-3)


def test_cells_report_the_probe_and_the_beyond_rows(tmp_path):
    text = np.random.default_rng(9).choice([b"the ", b"lord ", b"said ", b"unto "], 3000)
    path = tmp_path / "text.txt"
    path.write_bytes(b"".join(text))
    from test_lm import tiny_spec  # the cell fields of the other tests
    rows, _, _ = cell.run(tiny_spec(str(path), context_probe=[1, 4, 16]))
    got = {r[10]: r[11] for r in rows if r[10].startswith("val_bpb_") and r[9] == 16}
    full = [r[11] for r in rows if r[10] == "val_bpb" and r[9] == 16 and r[3] is None][0]
    assert set(got) == {f"val_bpb_{p}{w}" for p in ("ctx", "beyond") for w in (1, 4, 16)}
    for w in (1, 4, 16):
        assert got[f"val_bpb_beyond{w}"] == pytest.approx(got[f"val_bpb_ctx{w}"] - full, abs=1e-12)
    assert got["val_bpb_ctx16"] == full  # w = n: the full attention
    baseline, _, _ = cell.run(tiny_spec(str(path), phase="baseline", ngram_order=2))
    assert [r[0] for r in baseline if r[11] == "test_bpb"] == ["ngram-0", "ngram-1", "ngram-2"]
    val = {r[0]: r[12] for r in baseline if r[11] == "val_bpb" and r[10] == 16}
    assert val["ngram-2"] < val["ngram-1"] < val["ngram-0"] < 8
    assert cell.run(tiny_spec(str(path), phase="baseline", ngram_order=2))[0] == baseline


def test_sinusoidal_positions_are_used_and_a_model_without_them_ignores_them():
    data = np.random.default_rng(10).integers(97, 123, 500).astype(np.uint8)
    x, _ = windows(data, np.array([0, 100]), 32)
    perm = torch.randperm(32, generator=torch.Generator().manual_seed(0))
    for variant, used in (("sinusoidal", True), ("nobias", False)):
        m, bias = tiny_model(variant), bias_of(variant)
        with torch.no_grad():
            a = m(x, [bias(32, layer, 0) for layer in range(2)])
            b = m(x, [bias(32, layer, 0) for layer in range(2)], positions=perm)
        assert (not torch.equal(a, b)) == used, variant


def test_sinusoidal_trains_and_evaluates_beyond_its_context(tmp_path):
    path = tmp_path / "text.txt"
    path.write_bytes(b"".join(np.random.default_rng(11).choice([b"in ", b"the ", b"beginning "], 2000)))
    from test_lm import tiny_spec
    rows, _, _ = cell.run(tiny_spec(str(path), variant="sinusoidal", eval_lengths=[1, 2, 4]))
    contexts = {r[9] for r in rows if r[10] == "val_bpb"}
    assert contexts == {16, 32, 64}
    assert all(math.isfinite(r[11]) for r in rows)
    # (A sinusoidal model never fine-tunes: experiment.trainings lists no such cell,
    # tests/python/test_lm_config.py.)
