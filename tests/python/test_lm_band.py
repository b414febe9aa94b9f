"""Tests of banded attention (poslsh.lm.band) against the dense form it replaces.

Oracle: the dense [heads, n, n] bias of the same variant and draw (Bias.dense,
the path every model trained on before), run through dense softmax attention.
Where the weights vanish beyond the band (lsh, the fixed grids, fixed-block,
the window) banded and dense attention are the same sums in another order:
float64 agreement to 1e-12, forward and gradients. Exact ALiBi's band is
certified: its error must stay within the certificate, also on inputs built so
that a far key dominates a row. Negative controls: a band one key too narrow,
and ALiBi's band taken without the logits' spread, must be caught.
"""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="Debian's python3-torch is not installed")

from poslsh.lm import attention, band  # noqa: E402
from poslsh.lm.attention import Bias  # noqa: E402
from poslsh.lm.band import Banded, alibi_reach, banded_attend  # noqa: E402
from poslsh.lm.model import ByteTransformer, ModelShape, attend, bits_per_byte  # noqa: E402
from poslsh.lm.train import deterministic  # noqa: E402

SIGMAS = [1.0, 2.0, 4.0, 8.0]
ZERO_BEYOND_BAND = [("lsh", 4), ("lsh", 1), ("fixed", 4), ("window", 4), ("fixed-block", 0)]


@pytest.fixture(autouse=True)
def one_thread():
    deterministic(1)


def inputs(heads, n, d, seed, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return [(scale * torch.randn(2, heads, n, d, generator=g, dtype=torch.float64)).requires_grad_()
            for _ in range(3)]


def output_and_gradients(q, k, v, run):
    out = run(q, k, v)
    weights = torch.randn(out.shape, generator=torch.Generator().manual_seed(99), dtype=out.dtype)
    grads = torch.autograd.grad((out * weights).sum(), (q, k, v))
    return out.detach(), grads


def as_dense(values, n):
    """The dense [heads, n, n] bias of banded values (by hand, entry by entry)."""
    heads, _, width = values.shape
    out = torch.full((heads, n, n), -math.inf, dtype=values.dtype)
    for i in range(n):
        for t in range(min(width, i + 1)):
            out[:, i, i - t] = values[:, i, t]
    return out


def variant(name, s, n, sigmas=SIGMAS):
    return Bias(name, sigmas, 2, s=s, seed=5, train_context=n, cost_draws=(0, 2))


@pytest.mark.parametrize("name,s", ZERO_BEYOND_BAND)
@pytest.mark.parametrize("n", [100, 256])
def test_banded_values_are_the_dense_bias(name, s, n):
    bias = variant(name, s, n)
    for layer, draw in [(0, 0), (1, 3)]:
        banded = bias(n, layer, draw)
        assert isinstance(banded, Banded), (name, n)
        dense = bias.dense(n, layer, draw)
        assert torch.equal(as_dense(banded.values, n), dense)  # bit for bit, -inf beyond the band


@pytest.mark.parametrize("name,s", ZERO_BEYOND_BAND)
@pytest.mark.parametrize("n", [100, 256])
def test_banded_attention_equals_dense_forward_and_gradients(name, s, n):
    bias = variant(name, s, n)
    banded, dense = bias(n, 1, 2), bias.dense(n, 1, 2).double()
    q, k, v = inputs(len(SIGMAS), n, 8, seed=n)
    got = output_and_gradients(q, k, v, lambda a, b, c: banded_attend(a, b, c, banded.values.double()))
    want = output_and_gradients(q, k, v, lambda a, b, c: attend(a, b, c, dense))
    for x, y in zip([got[0], *got[1]], [want[0], *want[1]]):
        torch.testing.assert_close(x, y, rtol=0, atol=1e-12)


def test_a_band_one_key_too_narrow_is_caught():
    n = 256
    bias = variant("lsh", 4, n)
    banded, dense = bias(n, 0, 1), bias.dense(n, 0, 1).double()
    q, k, v = inputs(len(SIGMAS), n, 8, seed=1)
    want = attend(q, k, v, dense)
    narrow = banded.values[..., :-1].double()  # the widest block's last key left out
    error = (banded_attend(q, k, v, narrow) - want).abs().max().item()
    assert error > 1e-3, error
    right = (banded_attend(q, k, v, banded.values.double()) - want).abs().max().item()
    assert right < 1e-12, right


def certificate(q, v, out):
    """Per row, the bound on |banded - dense| of a band certified at band.TOL."""
    r = band.TOL
    return r / (1 + r) * (v.abs().amax(dim=(-2, -1), keepdim=True) + out.abs().amax(dim=-1, keepdim=True))


def far_key_inputs(n, d=8):
    """Every query aligned with key 0, which is long: row i's weight sits on key 0
    (logit 35) until i - 0 is far past the band of ALiBi alone (~19 sigma)."""
    q = torch.zeros(1, 1, n, d, dtype=torch.float64)
    k = torch.zeros(1, 1, n, d, dtype=torch.float64)
    q[..., 0], k[0, 0, 0, 0] = 10.0, 10.0
    v = torch.randn(1, 1, n, d, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    return q, k, v


def test_alibi_band_is_certified_even_when_a_far_key_dominates():
    n, sigma = 256, 1.0
    q, k, v = far_key_inputs(n)
    alibi = attention.alibi_form([sigma], n)
    resolved = alibi.resolve(q, k)
    assert isinstance(resolved, Banded) and resolved.band > alibi_reach(sigma, 0.0) + 30
    want = attend(q, k, v, attention.alibi_bias([sigma], n).double())
    got = banded_attend(q, k, v, resolved.values.double())
    assert torch.all((got - want).abs() <= certificate(q, v, want))
    # Negative control: the band of ALiBi's decay alone leaves key 0 out of far rows.
    naive = attention.band_values(-torch.arange(alibi_reach(sigma, 0.0) + 1.0)[None, :] / sigma,
                                  [alibi_reach(sigma, 0.0)], n)
    assert (banded_attend(q, k, v, naive.double()) - want).abs().max().item() > 0.1


def test_alibi_band_within_its_certificate_on_random_inputs():
    n, sigmas = 256, [1.0, 2.0]
    q, k, v = inputs(2, n, 8, seed=4)
    resolved = attention.alibi_form(sigmas, n).resolve(q, k)
    assert isinstance(resolved, Banded)
    want = attend(q, k, v, attention.alibi_bias(sigmas, n).double())
    got = banded_attend(q, k, v, resolved.values.double())
    assert torch.all((got - want).abs() <= certificate(q, v, want))
    assert not torch.equal(got, want)  # keys really were left out


def test_alibi_reach_is_the_smallest_certified_band():
    for sigma, spread in [(1.0, 0.0), (2.0, 3.5), (16.0, 0.0), (16.0, 0.7)]:
        w = alibi_reach(sigma, spread)
        left_out = lambda w: math.exp(spread - (w + 1) / sigma) / (1 - math.exp(-1 / sigma))  # noqa: E731
        assert left_out(w) <= band.TOL < left_out(w - 1), (sigma, spread, w)
    assert alibi_reach(16.0, 0.0) == 311  # 19.4 sigma: 16.6 sigma (2^-24) and the tail's sum


@pytest.mark.parametrize("name,s", [("exact", 0), *ZERO_BEYOND_BAND])
def test_a_model_trains_the_same_banded_and_dense(name, s):
    n, sigmas = 256, [1.0, 2.0, 4.0, 8.0]
    torch.manual_seed(0)
    model = ByteTransformer(ModelShape(layers=2, heads=4, width=32))
    tokens = torch.randint(0, 256, (2, n + 1), generator=torch.Generator().manual_seed(1))
    bias = Bias(name, sigmas, 2, s=s, seed=5, train_context=n, cost_draws=(0, 2))
    results = []
    for form in (bias, bias.dense):
        model.zero_grad()
        layers = [form(n, layer, 7) for layer in range(2)]
        loss = bits_per_byte(model(tokens[:, :-1], layers), tokens[:, 1:])
        loss.backward()
        results.append((layers, loss.detach(), [p.grad.clone() for p in model.parameters()]))
    (banded, loss_b, grads_b), (dense, loss_d, grads_d) = results
    assert not isinstance(banded[0], torch.Tensor) and isinstance(dense[0], torch.Tensor)
    torch.testing.assert_close(loss_b, loss_d, rtol=1e-6, atol=0)
    for a, b in zip(grads_b, grads_d):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6 * b.abs().max().item())


def test_dense_where_a_band_does_not_pay():
    assert isinstance(Bias("nobias", SIGMAS, 1)(512, 0, 0), torch.Tensor)
    assert isinstance(variant("lsh", 4, 24)(24, 0, 0), torch.Tensor)
    # Exact ALiBi at sigma = 256 reaches past n = 512 even at q, k = 0: dense, every key.
    assert isinstance(attention.alibi_form([256.0], 512), torch.Tensor)
    assert band.pays(10, 64) and not band.pays(40, 64)


def test_fixed_block_is_one_grid_of_width_two_sigma_without_bias_inside():
    n, sigmas = 40, [2.0, 3.3]
    bias = Bias("fixed-block", sigmas, 1)
    assert [g[0][0] for g in bias.grids] == [4, 7]
    dense = bias.dense(n, 0, 0)
    for h, w in enumerate([4, 7]):
        block = np.arange(n) // w
        want = np.where((block[:, None] == block[None, :]) & np.tri(n, dtype=bool), 0.0, -np.inf)
        assert np.array_equal(dense[h].numpy(), want)
        keys = np.tri(n)[block[:, None] == block[None, :]].sum() / n
        assert bias.keys_per_query(n)[h] == pytest.approx(keys, rel=1e-12)
    assert attention.describe(bias) == "fixed-block widths [4, 7]"


def test_banded_training_is_deterministic():
    from poslsh.lm.train import TrainConfig, train
    cfg = TrainConfig(ModelShape(layers=1, heads=2, width=16), context=128, batch=2, steps=4, lr=3e-3, warmup=1,
                      weight_decay=0.1, checkpoint_every=4, curve_every=0)
    text = np.random.default_rng(0).integers(97, 123, 4000).astype(np.uint8)
    bias = Bias("lsh", [1.0, 2.0], 1, s=4, seed=1)
    assert isinstance(bias(128, 0, 0), Banded)
    first, second = train(text, bias, cfg, seed=4), train(text, bias, cfg, seed=4)
    assert first.losses == second.losses
    assert train(text, bias, cfg, seed=5).losses != first.losses  # the seed matters (negative control)
