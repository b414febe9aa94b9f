#!/usr/bin/python3
"""Verifying a PyTorch positional-LSH implementation with poslsh, as a pytest.

An implementer writes two things poslsh can check without trusting them:

  - a sampler of hashes, pitch ~ Gamma(2, sigma) and shift ~ U[0, pitch)
    (TorchSampler, with torch.distributions): poslsh.verify_hashes runs the
    checks of `poslsh verify` on its draws and must PASS them all;
  - an attention kernel that turns hashes into block-diagonal masks and the
    masks into the ratio estimator (torch_lsh_attention): on the same hashes
    it must equal poslsh.lsh_attention(..., pitch=..., shift=...) to rounding.

Each has a planted bug (BUGS), off unless asked for: the tests named
test_planted_* plant each and require it to be caught, and
POSLSH_EXAMPLE_BUG=NAME plants NAME in the sound tests too, which must then
fail (tests/python/test_python_verify.py runs this file both ways).

Run: PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/examples/test_torch_verify.py
"""
import os

import numpy as np
import pytest
import torch

import poslsh

# The planted bugs: two in the sampler, one in the kernel.
BUGS = ("exponential-pitch", "zero-shift", "block-edge-off-by-one")
PLANTED = os.environ.get("POSLSH_EXAMPLE_BUG", "")
assert PLANTED in ("",) + BUGS, f"POSLSH_EXAMPLE_BUG must be one of {BUGS}, got {PLANTED!r}"

N, SIGMA = 4096, 16.0


class TorchSampler:
    """Hashes of positional LSH: pitch ~ Gamma(2, sigma), shift ~ U[0, pitch)."""

    def __init__(self, sigma, bug=PLANTED):
        self.sigma, self.bug = sigma, bug

    def draw(self, count, seed):
        torch.manual_seed(seed)
        if self.bug == "exponential-pitch":  # the wrong law: mean sigma, not 2 sigma
            pitch = torch.distributions.Exponential(torch.tensor(1 / self.sigma, dtype=torch.float64)).sample((count,))
        else:
            pitch = torch.distributions.Gamma(torch.tensor(2.0, dtype=torch.float64),
                                              torch.tensor(1 / self.sigma, dtype=torch.float64)).sample((count,))
        shift = torch.rand(count, dtype=torch.float64) * pitch
        if self.bug == "zero-shift":  # every block edge pinned to position 0
            shift = torch.zeros_like(pitch)
        return pitch, shift


def torch_lsh_attention(q, k, v, pitch, shift, causal=False, bug=PLANTED):
    """T~ = D~^-1 (A ⊙ M~) V: for each hash, softmax numerators and denominators
    over the keys in the query's block (no positional bias: the masks carry it
    in expectation), averaged over the hashes, divided once."""
    n, d = q.shape
    logits = q @ k.T / d ** 0.5
    weights = torch.exp(logits - logits.max(dim=1, keepdim=True).values)
    positions = torch.arange(n, dtype=torch.float64)
    numerator, denominator = torch.zeros(n, v.shape[1], dtype=v.dtype), torch.zeros(n, 1, dtype=v.dtype)
    for p, u in zip(pitch, shift):
        key_bin = torch.floor((positions - u) / p)
        # The bug: the query's block read one position early, so the first
        # query of every block attends the block before it.
        query_bin = torch.floor((positions - (1 if bug == "block-edge-off-by-one" else 0) - u) / p)
        mask = query_bin[:, None] == key_bin[None, :]
        if causal:
            mask &= torch.ones(n, n, dtype=torch.bool).tril()
        w = weights * mask
        numerator += w @ v
        denominator += w.sum(dim=1, keepdim=True)
    return numerator / denominator


def failing(result):
    return "\n".join(line["text"] for line in result["lines"] if line["verdict"] == "FAIL")


# ---- the sound implementation (fails when POSLSH_EXAMPLE_BUG plants a bug) ----


def test_sampler_passes_verify():
    pitch, shift = TorchSampler(SIGMA).draw(16384, seed=1)
    result = poslsh.verify_hashes(pitch.numpy(), shift.numpy(), sigma=SIGMA, n=N)
    assert result["passed"], failing(result)
    assert result["samples"] == 16384


@pytest.mark.parametrize("causal", [False, True])
def test_kernel_equals_poslsh_on_the_same_hashes(causal):
    gen = torch.Generator().manual_seed(0)
    n, d = 128, 8
    q, k, v = (torch.randn(n, d, generator=gen, dtype=torch.float64) for _ in range(3))
    pitch, shift = TorchSampler(4.0, bug="").draw(16, seed=2)  # the sound sampler: this tests the kernel
    ours = torch_lsh_attention(q, k, v, pitch, shift, causal)
    reference = poslsh.lsh_attention(q.numpy(), k.numpy(), v.numpy(), pitch=pitch.numpy(),
                                     shift=shift.numpy(), causal=causal)
    # Same estimator, different summation order: float64 rounding only.
    assert np.abs(ours.numpy() - reference).max() < 1e-12


# ---- each planted bug is caught ----------------------------------------------


@pytest.mark.parametrize("bug", ["exponential-pitch", "zero-shift"])
def test_planted_sampler_bug_fails_verify(bug):
    pitch, shift = TorchSampler(SIGMA, bug=bug).draw(16384, seed=1)
    result = poslsh.verify_hashes(pitch.numpy(), shift.numpy(), sigma=SIGMA, n=N)
    assert not result["passed"]
    failed = {line["name"].split("[")[0] for line in result["lines"] if line["verdict"] == "FAIL"}
    # A wrong pitch law moves every co-binning probability and the pitch law;
    # a zero shift pins a block edge at position 0 (the start anchor's runs).
    assert ("pitch-law" in failed) if bug == "exponential-pitch" else ("cobin-mean" in failed), failed


def test_planted_kernel_bug_differs_from_poslsh():
    gen = torch.Generator().manual_seed(0)
    n, d = 128, 8
    q, k, v = (torch.randn(n, d, generator=gen, dtype=torch.float64) for _ in range(3))
    pitch, shift = TorchSampler(4.0, bug="").draw(16, seed=2)
    ours = torch_lsh_attention(q, k, v, pitch, shift, bug="block-edge-off-by-one")
    reference = poslsh.lsh_attention(q.numpy(), k.numpy(), v.numpy(), pitch=pitch.numpy(),
                                     shift=shift.numpy())
    assert np.abs(ours.numpy() - reference).max() > 1e-3
    # Its hashes are sound, so verifying the sampler alone cannot see it.
