"""Small ALiBi language models trained with positional-LSH attention (PyTorch).

`poslsh lm` (the CLI, a `[lm]` config section) runs the experiment: its
settings are config (LmConfig: defaults, help and checks, once), its cells
and rows experiment, each training one cell (poslsh.lm.cell) run as `python3
-m poslsh.lm cell REQUEST`. The parts: corpus (real text from a Debian package, byte tokens,
fixed split), attention (the variants as additive biases, hashes from
poslsh.draw_hashes / poslsh.block_starts), model (a byte-level decoder-only
transformer), train (deterministic, resumable AdamW) and evaluate (bits per
byte, by position bucket; the swap-in output errors; the context-use probe
through attention.CutBias), ngram (the byte n-gram baselines, numpy only:
no torch) and rows (a cell's measurements as table rows); saved keeps trained
models (`--keep-models DIR`) and loads them back:

    model, bias, config = poslsh.lm.load_model("DIR/exact_seed0")
"""


def load_model(path):
    """A kept model (poslsh.lm.saved.load_model): (model, its training bias, its config)."""
    from .saved import load_model as load  # torch is imported only when asked
    return load(path)
