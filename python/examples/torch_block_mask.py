#!/usr/bin/python3
"""Positional-LSH attention in PyTorch, with poslsh only drawing the hashes.

The s hashes of (seed, trial) become s block-diagonal boolean attention masks
(from poslsh.block_starts); torch then computes, for every hash, the masked
softmax numerator sum_j exp(logit_ij) v_j and denominator sum_j exp(logit_ij)
over the keys j in query i's block, averages both over the hashes, and divides
once (MATH §7's ratio estimator). Inside a block the logit is q_i·k_j / sqrt(d)
with NO ALiBi bias: the masks carry the bias, in expectation,
E[mean of masks] = exp(-|i-j| / sigma). The exact ALiBi attention (logit
q_i·k_j / sqrt(d) - |i-j| / sigma, every key) is computed too, as the target.

The result must equal poslsh.lsh_attention on the same float32 tensors to
float32 rounding: the script prints the largest difference and exits 1 above
TOLERANCE. This is how the hashes feed a training framework (masks for
torch's attention, no poslsh in the forward pass).

Run: PYTHONPATH=build/python /usr/bin/python3 python/examples/torch_block_mask.py
"""
import math
import sys

import numpy as np
import torch

import poslsh

# Outputs are O(1) (convex combinations of V's rows); torch and poslsh sum in
# different orders (poslsh: online softmax over key tiles), so they agree to a
# few float32 ulps of the sums, far below this.
TOLERANCE = 1e-5

heads, n, d = 2, 256, 16
sigmas = [4.0, 16.0]  # one ALiBi scale 1/slope per head
s, seed, trial, causal = 8, 1, 0, True

gen = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(heads, n, d, generator=gen, dtype=torch.float32) for _ in range(3))


def block_mask(pitch, shift):
    """The boolean block-diagonal mask of one hash: True where i and j share a block."""
    starts = poslsh.block_starts(pitch, shift, n)
    block_of = torch.repeat_interleave(torch.arange(len(starts) - 1), torch.from_numpy(np.diff(starts)))
    mask = block_of[:, None] == block_of[None, :]
    return mask & torch.ones(n, n, dtype=torch.bool).tril() if causal else mask


positions = torch.arange(n, dtype=torch.float32)
causal_mask = torch.ones(n, n, dtype=torch.bool).tril()
outputs, exact = [], []
for h in range(heads):
    logits = q[h] @ k[h].T / math.sqrt(d)
    # Heads share one draw of hashes (the CLI's default), rescaled by each sigma.
    pitch, shift = poslsh.draw_hashes(seed, trial, s, sigmas[h])
    row_max = logits.max(dim=1, keepdim=True).values  # any per-row constant cancels
    numerator, denominator = torch.zeros(n, d), torch.zeros(n, 1)
    for p, u in zip(pitch, shift):
        weights = torch.exp(logits - row_max) * block_mask(p, u)  # masked: exactly 0
        numerator += weights @ v[h] / s
        denominator += weights.sum(dim=1, keepdim=True) / s
    outputs.append(numerator / denominator)

    # The target: exact ALiBi attention.
    bias = -(positions[:, None] - positions[None, :]).abs() / sigmas[h]
    alibi = (logits + bias).masked_fill(~causal_mask, float("-inf")) if causal else logits + bias
    exact.append(torch.softmax(alibi, dim=1) @ v[h])

ours = torch.stack(outputs)
reference = torch.from_numpy(poslsh.lsh_attention(q.numpy(), k.numpy(), v.numpy(), sigmas, s, seed=seed,
                                                  trial=trial, causal=causal))
assert reference.dtype == torch.float32 and reference.shape == ours.shape
diff = (ours - reference).abs().max().item()
print(f"max |torch - poslsh.lsh_attention| = {diff:.3g} (tolerance {TOLERANCE:g}; n = {n}, "
      f"d = {d}, {heads} heads, sigma = {sigmas}, s = {s} hashes, causal = {causal})")
error = (ours - torch.stack(exact)).abs().max().item()
print(f"max |LSH estimate - exact ALiBi attention| = {error:.3g} (the estimator's error at s = {s}: "
      "it shrinks like 1/sqrt(s))")
if not diff <= TOLERANCE:
    sys.exit(f"torch and poslsh.lsh_attention differ by {diff:.3g} > {TOLERANCE:g}")
