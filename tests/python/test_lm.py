"""Tests of poslsh.lm (the language-model experiment) on tiny models: seconds.

Every check is deterministic (fixed seeds, no randomness at test time), so a
failure is a change of behaviour, not bad luck. Oracles: block masks built
position by position from poslsh.block_starts, and the dense construction
(s n x n masks) the O(n + blocks) one replaced; poslsh.lsh_attention (the C++
ratio estimator) for the torch LSH attention; finite differences for its
gradients; keys per query counted key by key. Negative controls: a mask
shifted by one position must not approach exact ALiBi; a biased model must
differ from the no-bias one; a fine-tune from other weights must differ.
"""
import dataclasses
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
import poslsh.lm  # noqa: E402
from poslsh.lm import attention, cell, corpus, evaluate  # noqa: E402
from poslsh.lm.attention import Bias, alibi_bias, lsh_bias  # noqa: E402
from poslsh.lm.model import ByteTransformer, ModelShape, attend  # noqa: E402
from poslsh.lm.train import TrainConfig, deterministic, train  # noqa: E402

TINY = TrainConfig(ModelShape(layers=2, heads=2, width=16), context=16, batch=2, steps=6, lr=3e-3, warmup=2,
                   weight_decay=0.1, checkpoint_every=3, curve_every=0)
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


def dense_lsh_bias(seed, trial, s, sigmas, n):
    """The construction the O(n + blocks) one replaced: s dense n x n block masks per head."""
    means = []
    for sigma in sigmas:
        pitch, shift = poslsh.draw_hashes(seed, trial, s, sigma)
        ids = torch.stack([torch.repeat_interleave(torch.arange(len(st) - 1), torch.from_numpy(np.diff(st)))
                           for st in (poslsh.block_starts(p, u, n) for p, u in zip(pitch, shift))])
        means.append((ids[:, :, None] == ids[:, None, :]).to(torch.float32).mean(dim=0))
    m = torch.stack(means)
    return attention.masked(m.log(), m > 0)


@pytest.mark.parametrize("n,s", [(40, 5), (97, 1), (128, 20), (64, 7)])
def test_block_start_bias_equals_the_dense_construction(n, s):
    sigmas = [2.0, 8.0, 64.0]
    assert torch.equal(lsh_bias(3, 2, s, sigmas, n), dense_lsh_bias(3, 2, s, sigmas, n))
    # Negative control: another draw's bias differs.
    assert not torch.equal(lsh_bias(3, 3, s, sigmas, n), dense_lsh_bias(3, 2, s, sigmas, n))


@pytest.mark.parametrize("s", [1, 3, 8])
def test_window_and_fixed_cost_what_lsh_costs_on_the_same_draws(s):
    n, layers, seed, draws = 64, 2, 5, 4
    sigmas = [2.0, 4.0]
    lsh = attention.lsh_keys_per_query(seed, s, sigmas, n, layers, 0, draws)
    # lsh's keys counted key by key on the same draws: query i of a block [a, b) visits a .. i.
    for h, sigma in enumerate(sigmas):
        counted = []
        for t in range(draws):
            for layer in range(layers):
                pitch, shift = poslsh.draw_hashes(seed, t * layers + layer, s, sigma)
                counted.append(sum(np.tril(block_mask_by_hand(p, u, n)).sum() / n for p, u in zip(pitch, shift)))
        assert lsh[h] == pytest.approx(np.mean(counted), rel=1e-12)
    window = Bias("window", sigmas, layers, s=s, train_context=n, cost_seed=seed, cost_draws=(0, draws))
    fixed = Bias("fixed", sigmas, layers, s=s, train_context=n, cost_seed=seed, cost_draws=(0, draws))
    for variant in (window, fixed):
        keys = variant.keys_per_query(n)
        assert all(abs(k - want) <= 1 for k, want in zip(keys, lsh)), (variant.variant, keys, lsh)
        # ... and the biases really visit that many keys: count the finite entries.
        b = variant.dense(n, 0, 0)
        for h in range(len(sigmas)):
            if variant.variant == "window":
                assert np.isfinite(b[h].numpy()).sum() / n == pytest.approx(keys[h], rel=1e-12)
            else:  # s grids, each counted by hand from its blocks
                by_hand = sum(np.tril(block_mask_by_hand_starts(attention.grid_starts(w, u, n), n)).sum() / n
                              for w, u in fixed.grids[h])
                assert keys[h] == pytest.approx(by_hand, rel=1e-12)
    assert lsh_keys_differ_by_draw(seed, s, sigmas, n, layers)


def lsh_keys_differ_by_draw(seed, s, sigmas, n, layers):
    """Negative control: other draws cost something else, so matching on the same draws matters."""
    return (attention.lsh_keys_per_query(seed, s, sigmas, n, layers, 0, 1)
            != attention.lsh_keys_per_query(seed + 1, s, sigmas, n, layers, 0, 1))


def block_mask_by_hand_starts(starts, n):
    m = np.zeros((n, n))
    for a, b in zip(starts[:-1], starts[1:]):
        m[a:b, a:b] = 1
    return m


def test_fixed_grids_mean_mask_is_their_block_masks_mean():
    n, grids = 30, [(7, 0), (7, 2), (8, 5)]
    got = attention.fixed_bias([grids], n)[0].numpy()
    mean = sum(block_mask_by_hand_starts(attention.grid_starts(w, u, n), n) for w, u in grids) / len(grids)
    want = np.where(np.tril(np.ones((n, n))) * mean > 0, np.log(np.maximum(mean, 1e-300)), -np.inf)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_layer_and_step_pick_the_trial():
    layers, seed = 3, 11
    bias = Bias("lsh", SIGMAS, layers, s=4, seed=seed)
    for step, layer in [(0, 0), (2, 1), (5, 2)]:
        assert torch.equal(bias.dense(24, layer, step), lsh_bias(seed, step * layers + layer, 4, SIGMAS, 24))
    assert not torch.equal(bias.dense(24, 0, 1), bias.dense(24, 0, 0))  # fresh hashes every step


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


def test_per_head_draws_give_each_head_its_own_hashes_from_a_documented_stream():
    n, s, layers, seed, sigmas = 64, 3, 2, 11, [4.0, 4.0, 4.0]
    shared = Bias("lsh", sigmas, layers, s=s, seed=seed)
    per_head = Bias("lsh", sigmas, layers, s=s, seed=seed, draws="per-head")
    draw, layer = 5, 1
    a, b = shared.dense(n, layer, draw), per_head.dense(n, layer, draw)
    # Equal scales: shared heads are one draw (identical); per-head heads differ pairwise.
    assert torch.equal(a[0], a[1]) and torch.equal(a[1], a[2])
    assert not torch.equal(b[0], b[1]) and not torch.equal(b[1], b[2]) and not torch.equal(b[0], b[2])
    # The stream: head h at (draw, layer) is poslsh trial (draw * layers + layer) * heads + h.
    for h in range(3):
        trial = (draw * layers + layer) * 3 + h
        expected = attention.grids_dense([attention.hash_starts(seed, trial, s, 4.0, n)], n)[0]
        assert torch.equal(b[h], expected)
    # Same seed, same bits (banded form too); another seed, other bits (negative control).
    again = Bias("lsh", sigmas, layers, s=s, seed=seed, draws="per-head")
    assert torch.equal(again.dense(n, layer, draw), b)
    form = lambda bias: getattr(bias(n, layer, draw), "values", None)  # noqa: E731  (banded or dense)
    assert form(again) is not None and torch.equal(form(again), form(per_head))
    other = Bias("lsh", sigmas, layers, s=s, seed=seed + 1, draws="per-head")
    assert not torch.equal(other.dense(n, layer, draw), b)
    with pytest.raises(ValueError, match="draws"):
        Bias("lsh", sigmas, layers, s=s, draws="per-layer")


def test_per_head_draws_reach_cost_and_matched_baselines(corpus_file):
    rows, _, _ = cell.run(tiny_spec(corpus_file, variant="lsh", s=2, eval_lengths=[1], draws="per-head"))
    keys = [r[11] for r in rows if r[10] == "keys_per_query" and r[7] is not None]
    assert keys == attention.lsh_keys_per_query(0, 2, [2.0, 8.0], 16, 1, 0, 4, "per-head")
    assert keys != attention.lsh_keys_per_query(0, 2, [2.0, 8.0], 16, 1, 0, 4)
    window = Bias("window", [2.0, 8.0], 1, s=2, train_context=16, cost_draws=(0, 4), draws="per-head")
    assert window.lsh_keys == keys  # equal cost is matched on the draws lsh trains with


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
    nobias = Bias("nobias", SIGMAS, 1).dense(n, 0, 0)
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    assert torch.all(nobias[:, causal] == 0) and torch.all(nobias[:, ~causal] == -math.inf)
    exact = Bias("exact", SIGMAS, 1).dense(n, 0, 0)
    i, j = 9, 4
    assert exact[1, i, j].item() == pytest.approx(-(i - j) / SIGMAS[1])
    assert not torch.equal(exact, nobias)


def test_fixed_blocks_and_window_shapes():
    n = 20
    fixed = Bias("fixed", [2.0], 1, s=1, train_context=n)
    (w, u), = fixed.grids[0]
    b = fixed.dense(n, 0, 0)[0]
    assert u == 0 and b[w, w].item() == 0 and b[w, w - 1].item() == -math.inf and b[w - 1, 0].item() == 0
    window = Bias("window", [2.0], 1, s=1, train_context=n)
    w = window.half_widths[0]
    b = window.dense(n, 0, 0)[0]
    assert b[10, 10 - w].item() == pytest.approx(-w / 2.0) and b[10, 10 - w - 1].item() == -math.inf


def test_sigmas_setting_is_checked():
    from poslsh.lm.config import LmConfig
    assert LmConfig(heads=2, width=8, sigmas=(1.0, 2.5)).head_sigmas() == (1.0, 2.5)
    with pytest.raises(ValueError, match="--sigmas must hold one ALiBi scale per head"):
        LmConfig(heads=2, width=8, sigmas=(1.0,))
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="--sigmas must be a finite number > 0"):
            LmConfig(heads=2, width=8, sigmas=(1.0, bad))


def test_gradients_of_lsh_attention_match_finite_differences():
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 10, 4, generator=g, dtype=torch.float64, requires_grad=True)
               for _ in range(3))
    bias = lsh_bias(3, 0, 3, SIGMAS, 10).double()
    assert torch.autograd.gradcheck(lambda a, b, c: attend(a, b, c, bias), (q, k, v))


def test_training_is_deterministic(text):
    bias = Bias("lsh", SIGMAS, TINY.shape.layers, s=2, seed=1)
    r1, r2 = train(text, bias, TINY, seed=4), train(text, bias, TINY, seed=4)
    assert r1.losses == r2.losses
    assert all(torch.equal(a, b) for a, b in zip(r1.model.state_dict().values(), r2.model.state_dict().values()))
    assert train(text, bias, TINY, seed=5).losses != r1.losses  # the seed matters (negative control)


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
    cfg = dataclasses.replace(TINY, curve_every=2)
    curve = lambda model: float(model.embed.weight.sum())  # noqa: E731  (a function of the weights)
    whole = train(text, bias, cfg, seed=4, curve=curve)
    checkpoint = tmp_path / "run.pt"
    with pytest.raises(KeyboardInterrupt):
        train(text, Interrupt(at=4), cfg, seed=4, checkpoint=checkpoint, curve=curve)  # checkpoint at 3
    assert len(torch.load(checkpoint)["losses"]) == 3
    resumed = train(text, bias, cfg, seed=4, checkpoint=checkpoint, curve=curve)
    assert resumed.losses == whole.losses and resumed.curve == whole.curve
    assert [p[0] for p in whole.curve] == [0, 2, 4, 6]
    assert all(torch.equal(a, b) for a, b in zip(whole.model.state_dict().values(),
                                                  resumed.model.state_dict().values()))


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


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    """A deterministic text file as the corpus of whole cells (poslsh.lm.cell)."""
    rng = np.random.default_rng(1)
    words = [b"the", b"lord", b"said", b"unto", b"him", b"and", b"of", b"land", b"day", b"light"]
    text = b" ".join(words[i] for i in rng.integers(0, len(words), 5000))
    path = tmp_path_factory.mktemp("corpus") / "text.txt"
    path.write_bytes(text)
    return str(path)


def tiny_spec(corpus_path, **changes):
    fields = dict(corpus=corpus_path, variant="exact", s=0, seed=0, phase="train", base="exact",
                  draws="shared", layers=1, heads=2, width=8, sigmas=[2.0, 8.0], context=16, batch=2, steps=4, lr=3e-3, warmup=1, weight_decay=0.1,
                  checkpoint_every=2, finetune_steps=3, curve_every=2, curve_batches=2, eval_lengths=[1, 4],
                  eval_batches=2, eval_batch=2, swap_s=[1, 4], swap_trials=2, context_probe=[1, 8],
                  ngram_order=3, checkpoint="",
                  base_checkpoint="", qkv_dir="", keep_dir="", file_stem="m", threads=1, progress=False)
    fields.update(changes)
    return cell.CellSpec(**fields)


def value(rows, metric, context, eval_="self", pos=(None, None), step=None):
    found = [r[11] for r in rows if r[10] == metric and r[9] == context and r[0] == eval_
             and (r[3], r[4]) == pos and r[2] == step and r[7] is None]
    assert len(found) == 1, (metric, context, eval_, pos, found)
    return found[0]


def test_finetune_starts_from_the_exact_model_bit_for_bit(corpus_file, tmp_path):
    exact_spec = tiny_spec(corpus_file, checkpoint=str(tmp_path / "exact_seed0.pt"))
    text = corpus.load(corpus_file)
    base = cell.pretrain(exact_spec, text, "exact", Path(exact_spec.checkpoint), "")
    seen = []
    ft = tiny_spec(corpus_file, variant="lsh", s=2, phase="finetune")
    bias = cell.make_bias(ft, "lsh", ft.seed, ft.steps, ft.finetune_steps)
    train(text.train, bias, ft.finetune_config(), ft.seed, curve=lambda m: seen.append(
        {k: v.clone() for k, v in m.state_dict().items()}) or 0.0,
        start={"model": base.model.state_dict(), "optimizer": base.optimizer})
    first = seen[0]  # the curve's step 0: the weights before the first fine-tune step
    assert all(torch.equal(first[k], v) for k, v in base.model.state_dict().items())
    assert not all(torch.equal(seen[-1][k], v) for k, v in base.model.state_dict().items())


def test_finetune_cells_are_deterministic_and_share_the_exact_model(corpus_file, tmp_path):
    exact_rows, _, _ = cell.run(tiny_spec(corpus_file, checkpoint=str(tmp_path / "a" / "exact_seed0.pt")))
    # A fine-tune whose base checkpoint is absent trains the same base itself (another shard).
    spec = lambda d, **kw: tiny_spec(corpus_file, phase="finetune", base_checkpoint=str(tmp_path / d / "exact_seed0.pt"),
                                     checkpoint=str(tmp_path / d / "ft.pt"), **kw)  # noqa: E731
    control, _, _ = cell.run(spec("b"))
    assert value(control, "val_bpb", 16, "swapin") == value(exact_rows, "val_bpb", 16)
    lsh1, _, _ = cell.run(spec("c", variant="lsh", s=2))
    lsh2, _, _ = cell.run(spec("d", variant="lsh", s=2))
    assert lsh1 == lsh2
    assert [r for r in lsh1 if r[10] == "curve_val_bpb"][0][2] == 0  # the swap-in point of the curve
    other, _, _ = cell.run(spec("e", variant="lsh", s=2, seed=1))
    assert value(other, "val_bpb", 16) != value(lsh1, "val_bpb", 16)  # negative control


def test_finetune_from_nobias_starts_from_the_nobias_model_and_resumes(corpus_file, tmp_path, monkeypatch):
    text = corpus.load(corpus_file)
    nobias_spec = tiny_spec(corpus_file, variant="nobias", checkpoint=str(tmp_path / "nobias_seed0.pt"))
    nobias = cell.pretrain(nobias_spec, text, "nobias", Path(nobias_spec.checkpoint), "")
    exact = cell.pretrain(tiny_spec(corpus_file), text, "exact", None, "")
    spec = lambda d, **kw: tiny_spec(corpus_file, phase="finetune", base="nobias",  # noqa: E731
                                     base_checkpoint=str(tmp_path / "nobias_seed0.pt"),
                                     checkpoint=str(tmp_path / d / "ft.pt"), **kw)
    # The swap-in value (before the first step) is the nobias model's own loss under lsh.
    lsh = cell.make_bias(spec("a", variant="lsh", s=2), "lsh", 0, 4, 3)
    eval_bias = cell.eval_bias_of(spec("a", variant="lsh", s=2), "lsh", lsh)
    before = evaluate.batch_bits(nobias.model, eval_bias, text.validation, 16, 2, 2).mean()
    from_exact = evaluate.batch_bits(exact.model, eval_bias, text.validation, 16, 2, 2).mean()
    assert before != from_exact  # negative control: the bases differ
    (tmp_path / "a").mkdir()
    rows, _, _ = cell.run(spec("a", variant="lsh", s=2))
    assert value(rows, "val_bpb", 16, "swapin") == float(before)
    # Deterministic, and a fine-tune interrupted at its third step (draw 4 + 2)
    # resumes from its checkpoint (two steps in) to the same rows.
    (tmp_path / "b").mkdir()
    original = attention.Bias.__call__

    def interrupted(self, n, layer, draw):
        if draw == 6:
            raise KeyboardInterrupt
        return original(self, n, layer, draw)

    monkeypatch.setattr(attention.Bias, "__call__", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cell.run(spec("b", variant="lsh", s=2))
    monkeypatch.undo()
    assert len(torch.load(tmp_path / "b" / "ft.pt")["losses"]) == 2
    resumed, _, _ = cell.run(spec("b", variant="lsh", s=2))
    assert resumed == rows


def test_position_buckets_add_up_to_the_whole_window(corpus_file):
    rows, _, _ = cell.run(tiny_spec(corpus_file, variant="window", s=2))
    n = 16
    assert evaluate.position_buckets(4 * n, n) == [(0, 16), (16, 32), (32, 64)]
    parts = [(hi - lo) * value(rows, "val_bpb", 4 * n, pos=(lo, hi)) for lo, hi in [(0, 16), (16, 32), (32, 64)]]
    assert sum(parts) / (4 * n) == pytest.approx(value(rows, "val_bpb", 4 * n), rel=1e-12)
    assert value(rows, "val_bpb", 4 * n, pos=(32, 64)) != value(rows, "val_bpb", 4 * n, pos=(0, 16))


def test_kept_models_load_back_to_the_same_losses(corpus_file, tmp_path):
    for variant, s in [("fixed", 3), ("exact", 0)]:
        rows, _, _ = cell.run(tiny_spec(corpus_file, variant=variant, s=s, keep_dir=str(tmp_path),
                                        file_stem=f"{variant}_seed0"))
        model, bias, config = poslsh.lm.load_model(tmp_path / f"{variant}_seed0")
        assert config["bias"]["variant"] == variant and config["training"]["steps"] == 4
        text = corpus.load(corpus_file)
        for m in (1, 4):
            bits = evaluate.batch_bits(model, bias, text.validation, 16 * m, 2, 2)
            assert float(bits.mean()) == value(rows, "val_bpb", 16 * m)
    untrained = ByteTransformer(model.shape).eval()
    assert float(evaluate.batch_bits(untrained, bias, text.validation, 16, 2, 2).mean()) != value(rows, "val_bpb", 16)


def test_cells_report_cost_and_expected_blocks(corpus_file):
    rows, _, _ = cell.run(tiny_spec(corpus_file, variant="lsh", s=2, eval_lengths=[1]))
    blocks = [r for r in rows if r[10] == "expected_blocks"]
    assert [r[11] for r in blocks] == [15 / 2.0 + 1, 15 / 8.0 + 1]
    keys = [r[11] for r in rows if r[10] == "keys_per_query" and r[7] is not None]
    assert keys == attention.lsh_keys_per_query(0, 2, [2.0, 8.0], 16, 1, 0, 4)


def test_bench_times_every_variant_at_equal_cost():
    from poslsh.lm import bench
    spec = bench.BenchSpec(n=[96], s=[2], layers=1, heads=2, width=8, sigmas=[1.0, 2.0], tokens=192, batch=0,
                           repeats=1, threads=1,
                           variants=["window", "exact", "lsh", "exact-dense", "sinusoidal", "fixed-block"])
    lines = bench.run(spec, progress=lambda _: None).splitlines()
    assert lines[0].split(",") == bench.COLUMNS
    rows = {(r["variant"], r["s"]): r for r in (dict(zip(bench.COLUMNS, line.split(","))) for line in lines[1:])}
    assert list(rows) == [("exact-dense", ""), ("exact", ""), ("fixed-block", ""), ("sinusoidal", ""), ("lsh", "2"),
                          ("window", "2")]
    assert all(float(r["cpu_seconds_per_step"]) > 0 and float(r["peak_mib"]) > 50 for r in rows.values())
    for r in rows.values():  # a step sees tokens = 192 bytes (2 windows of 96)
        assert abs(float(r["bytes_per_cpu_second"]) * float(r["cpu_seconds_per_step"]) - 192) < 1e-3 * 192, r
    assert rows[("sinusoidal", "")]["attention"] == "dense"  # nobias's attention: no band to cut
    # Dense where the band is the whole context, banded where it pays (the band below n).
    assert (rows[("exact-dense", "")]["attention"], rows[("exact-dense", "")]["band"]) == ("dense", "95")
    for key in [("exact", ""), ("fixed-block", ""), ("lsh", "2"), ("window", "2")]:
        assert rows[key]["attention"] == "banded" and int(rows[key]["band"]) < 64, key
    assert rows[("exact-dense", "")]["step_vs_dense_exact"] == "1"
    keys = {key: float(r["keys_per_query"]) for key, r in rows.items()}
    assert keys[("exact", "")] == keys[("exact-dense", "")] == (96 + 1) / 2
    assert abs(keys[("window", "2")] - keys[("lsh", "2")]) <= 1, keys  # matched to lsh's draws 0..3
    from poslsh.lm.config import BenchConfig
    good = dict(n=(16,), s=(1,), layers=1, heads=2, width=8, sigmas=(2.0, 4.0), tokens=64, repeats=1)
    assert bench.BenchSpec.of(BenchConfig(**good)).sigmas == [2.0, 4.0]
    with pytest.raises(ValueError, match="--sigmas"):
        BenchConfig(**{**good, "sigmas": (2.0,)})
    with pytest.raises(ValueError, match="--variant accepts"):
        BenchConfig(**{**good, "variant": ("fixed-blocks",)})


CLI = os.environ.get("POSLSH_CLI")
TINY_CLI = ["--layers", "1", "--heads", "2", "--width", "8", "--context", "16", "--batch", "2",
            "--steps", "3", "--warmup", "1", "--seeds", "2", "--s", "2", "--eval-lengths", "1,2",
            "--eval-batches", "2", "--eval-batch", "2", "--swap-s", "1,4", "--swap-trials", "3",
            "--variant", "exact,lsh", "--finetune-steps", "2", "--finetune-from", "exact,nobias",
            "--curve-every", "2", "--curve-batches", "2", "--no-timing", "--quiet"]


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


# Big enough that OpenBLAS splits the products over its threads (at the tiny sizes above it
# does not): with the pool left to the environment, the second table differs from the first.
BLAS_SIZED_CLI = ["--variant", "exact", "--seeds", "1", "--steps", "2", "--warmup", "1", "--layers", "4",
                  "--heads", "4", "--width", "128", "--context", "256", "--batch", "8", "--eval-lengths", "1",
                  "--eval-batches", "2", "--eval-batch", "2", "--swap-s", "1", "--swap-trials", "1",
                  "--curve-every", "0", "--context-probe", "8", "--ngram-order", "-1", "--no-timing", "--quiet"]


@pytest.mark.skipif(not CLI or shutil.which("bible") is None, reason="needs POSLSH_CLI and bible-kjv")
def test_cli_table_does_not_depend_on_the_callers_blas_threads(tmp_path):
    for pool in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=pool, OMP_NUM_THREADS=pool)
        r = run_cli([*BLAS_SIZED_CLI, "--threads", "1", "--out", f"b{pool}.csv"], tmp_path, env=env)
        assert r.returncode in (0, 1), r.stderr
    assert (tmp_path / "b1.csv").read_bytes() == (tmp_path / "b2.csv").read_bytes()


# One test checks three things on the same tables (each run too costly to repeat): the
# single run on one thread; its two shards, each run on two threads (cells side by side, the
# nobias base trained under its lock); and that each shard is one whole seed. Merged, the
# shards must give the single run's bytes.
@pytest.mark.skipif(not CLI or shutil.which("bible") is None, reason="needs POSLSH_CLI and bible-kjv")
def test_cli_table_is_the_same_on_one_thread_and_as_two_threaded_shards_of_whole_seeds(tmp_path):
    runs = (("1/1", "1", "t1.csv"), ("1/2", "2", "lm.1.csv"), ("2/2", "2", "lm.2.csv"))
    for shard, threads, out in runs:
        r = run_cli([*TINY_CLI, "--shard", shard, "--threads", threads, "--out", out], tmp_path)
        assert r.returncode in (0, 1), r.stderr
    for name, seed in (("lm.1.csv", "0"), ("lm.2.csv", "1")):  # a seed's trainings and fine-tunes
        rows = [l.split(",") for l in (tmp_path / name).read_text().splitlines()[1:]]
        assert {(r[2], r[3]) for r in rows if r[3] != "baseline"} == {
            (seed, "train"), (seed, "finetune"), (seed, "finetune-nobias")}, name
    r = subprocess.run([CLI, "merge", "--out", "t2.csv", "lm.1.csv", "lm.2.csv"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "t1.csv").read_bytes() == (tmp_path / "t2.csv").read_bytes()
    assert (tmp_path / "t1_qkv" / "seed0" / "layer0" / "q.npy").exists()
    assert not (tmp_path / "t1.checkpoints").exists()
    table = (tmp_path / "t1.csv").read_text()
    assert "lsh,2,0,train,3,exact," in table and "exact,,0,train,3,lsh,4,,,,2,0,1," in table
    assert "lsh,2,0,finetune,2,swapin," in table and "exact,,0,finetune,2,self,,2,,,,,,," in table
    # From nobias, which this run does not train itself: the first fine-tune trains the base
    # under its lock, the others read it (and the table is still the same on two threads).
    assert "lsh,2,0,finetune-nobias,2,swapin," in table and "exact,,0,finetune-nobias,2,self," in table
    assert ",0.02,," in table  # the default margin, in every row
    # The n-gram baselines (one seedless row per order, split and context) and the probe.
    assert "\nngram-5,,,baseline,,self," in table and "\nngram-0,,,baseline,,self," in table
    assert ",val_bpb_ctx1," in table and ",val_bpb_beyond8," in table
    # The exported Q, K, V run through `poslsh attention --qkv` and its checks.
    r = subprocess.run([CLI, "attention", "--qkv", str(tmp_path / "t1_qkv" / "seed0" / "layer0"),
                        "--alibi-heads", "2", "--causal", "--s", "1,4", "--trials", "3", "--quiet",
                        "--out", str(tmp_path / "att.csv")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([CLI, "check", str(tmp_path / "att.csv")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "0 failed" in r.stdout, r.stdout
