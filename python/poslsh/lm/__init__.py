"""Small ALiBi language models trained with positional-LSH attention (PyTorch).

`poslsh lm` (the CLI, a `[lm]` config section) runs the experiment: each
training is one cell (poslsh.lm.cell), run as `python3 -m poslsh.lm cell
SPEC_JSON`. The parts: corpus (real text from a Debian package, byte tokens,
fixed split), attention (the variants as additive biases, hashes from
poslsh.draw_hashes / poslsh.block_starts), model (a byte-level decoder-only
transformer), train (deterministic, resumable AdamW) and evaluate (bits per
byte; the swap-in output errors).
"""
