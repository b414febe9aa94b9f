"""The language models' settings: the one place where each has its default,
its help and its check (no torch here: `poslsh lm --help` reads this module).

`LmConfig` is `poslsh lm`'s configuration and `BenchConfig` that of `poslsh
bench lm`. Each field is one command-line option (`--weight-decay` is
`weight_decay`) whose metadata holds its help; the CLI declares the options
from `options_table` and hands back the values the caller gave as text
(`from_given`), which are parsed and checked here, once: a bad value is a
`UsageError` naming its option. An object that exists is valid.
"""
from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field

from .errors import UsageError

# The attention variants, in the order a run lists them. MATCHED: the
# variants with an s (positional LSH at s hashes, and the grids and windows
# of its cost); POSITION_EMBEDDED: the models that add absolute positions.
VARIANTS = ("exact", "lsh", "nobias", "fixed", "window", "fixed-block", "sinusoidal")
MATCHED = ("lsh", "fixed", "window")
POSITION_EMBEDDED = ("sinusoidal",)
DRAWS = ("shared", "per-head")  # one hash draw for all heads of a layer, or one per head
FINETUNE_BASES = ("exact", "nobias")
# bench lm's points: exact ALiBi on dense attention (the reference), then the
# variants, those with an s last (each run at every s).
DENSE_EXACT = "exact-dense"
BENCH_POINTS = (DENSE_EXACT,) + tuple(v for v in VARIANTS if v not in MATCHED) + MATCHED
MAX_HASHES = 2**31 - 1


def option(default, help_: str, *, shown: bool = True):
    """A field that is an option; `shown`: its default appears in --help and the run's config."""
    if isinstance(default, tuple):
        return field(default_factory=lambda: default, metadata={"help": help_, "shown": shown})
    return field(default=default, metadata={"help": help_, "shown": shown})


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


KINDS = {int: "INT", float: "FLOAT", str: "TEXT"}


def element_kind(f) -> type:
    """int, float or str: the type of the field or of its list's elements."""
    annotation = str(f.type)
    for kind in (int, float, str):
        if annotation in (kind.__name__, f"tuple[{kind.__name__}, ...]"):
            return kind
    raise TypeError(f"{f.name}: unsupported option type {annotation}")


def is_list(f) -> bool:
    return str(f.type).startswith("tuple[")


def default_text(f) -> str | None:
    """The default as the CLI shows and records it: '0.003', '[1,4,10,20]'."""
    if not f.metadata["shown"]:
        return None
    value = f.default_factory() if f.default is dataclasses.MISSING else f.default
    if is_list(f):
        return "[" + ",".join(str(v) for v in value) + "]"
    return str(value)


def options_table(cls) -> list[dict]:
    """The options of config class `cls` in declaration order, as the CLI declares them."""
    return [{"name": flag(f.name), "type": KINDS[element_kind(f)], "list": is_list(f),
             "default": default_text(f), "help": f.metadata["help"]}
            for f in dataclasses.fields(cls)]


def parse_value(f, text: str):
    kind = element_kind(f)
    try:
        return kind(text)
    except ValueError:
        raise UsageError(f"{flag(f.name)} expects {'an integer' if kind is int else 'a number'} "
                         f"(got '{text}')") from None


def from_given(cls, given: dict):
    """An object of `cls` from the options given as text ({name: text or [texts]}), the
    others at their defaults. Raises UsageError naming the first bad option."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for key, text in given.items():
        name = key.lstrip("-").replace("-", "_")
        if name not in fields:
            raise UsageError(f"lm: unknown option {flag(name)}")
        f = fields[name]
        texts = text if isinstance(text, list) else [text]
        parsed = [parse_value(f, t) for t in texts]
        values[name] = tuple(parsed) if is_list(f) else parsed[-1]
    return cls(**values)


def at_least(name: str, values, least: int) -> None:
    for v in values if isinstance(values, tuple) else (values,):
        if v < least:
            raise UsageError(f"{flag(name)} must be >= {least} (got {v})")


def positive_finite(name: str, values) -> None:
    for v in values if isinstance(values, tuple) else (values,):
        if not (math.isfinite(v) and v > 0):
            raise UsageError(f"{flag(name)} must be a finite number > 0 (got {v})")


def one_of(name: str, values, accepted: tuple) -> None:
    for v in values if isinstance(values, tuple) else (values,):
        if v not in accepted:
            raise UsageError(f"{flag(name)} accepts {', '.join(accepted)} (got '{v}')")


def hash_counts(name: str, values: tuple) -> None:
    for v in values:
        if not 1 <= v <= MAX_HASHES:
            raise UsageError(f"{flag(name)} must be an integer in [1, 2^31 - 1] (got {v})")


def head_shape(heads: int, width: int, sigmas: tuple) -> None:
    if width % heads != 0:
        raise UsageError(f"--width must be a multiple of --heads ({heads}), got {width}")
    if sigmas and len(sigmas) != heads:
        raise UsageError(f"--sigmas must hold one ALiBi scale per head (--heads {heads}), got "
                         f"{len(sigmas)} (or leave it out: Press et al.'s slopes)")
    positive_finite("sigmas", sigmas)


def press_sigmas(heads: int) -> tuple[float, ...]:
    """Press et al.'s ALiBi scales, sigma_h = 2^(8(h+1)/heads), as the core computes them."""
    import poslsh  # the compiled core: the same bits as `poslsh attention --alibi-heads`
    return tuple(poslsh.alibi_sigmas(heads))


@dataclass(frozen=True)
class LmConfig:
    """`poslsh lm`: one training per (variant, s, seed), evaluated (cell.py says what)."""
    corpus: str = option("bible-kjv", "Text: bible-kjv (Debian's bible-kjv) or the path of a text file")
    variant: tuple[str, ...] = option(
        VARIANTS, "Attention variants: exact, lsh, nobias, fixed (s shifted grids of lsh's cost), window, "
        "fixed-block (the paper's one grid of width round(2 sigma)), sinusoidal (absolute positions, "
        "no ALiBi: the extrapolation control)")
    s: tuple[int, ...] = option((1, 4, 10, 20), "Hashes of the lsh variant, one training each")
    seed: int = option(0, "First training seed")
    seeds: int = option(3, "Seeds per variant (seed, seed + 1, ...)")
    layers: int = option(4, "Transformer blocks (>= 1)")
    heads: int = option(4, "Attention heads")
    sigmas: tuple[float, ...] = option(
        (), "ALiBi scale of each head (one per head, > 0; default: Press et al.'s slopes, "
        "sigma_h = 2^(8(h+1)/heads))", shown=False)
    width: int = option(128, "Model width (a multiple of --heads)")
    context: int = option(128, "Training context n (bytes, >= 2)")
    batch: int = option(16, "Sequences per training step")
    steps: int = option(400, "Training steps (AdamW)")
    lr: float = option(3e-3, "Peak learning rate (> 0)")
    warmup: int = option(40, "Linear warm-up steps, then cosine decay to lr/10")
    weight_decay: float = option(0.1, "AdamW weight decay of the matrices (>= 0)")
    checkpoint_every: int = option(50, "Steps between checkpoints")
    eval_lengths: tuple[int, ...] = option(
        (1, 2, 4), "Evaluation contexts as multiples of --context (length extrapolation)")
    eval_batches: int = option(16, "Validation batches (>= 2; one fresh hash draw each)")
    eval_batch: int = option(8, "Windows per validation batch")
    curve_every: int = option(
        50, "Learning curve: training and validation loss every this many steps (0: none)")
    curve_batches: int = option(4, "Learning curve: validation batches per point")
    swap_s: tuple[int, ...] = option(
        (1, 2, 4, 8, 16, 32, 64), "Swap-in: hashes at which positional LSH replaces the exact model's ALiBi")
    swap_trials: int = option(8, "Swap-in: independent hash draws per s for the output errors")
    context_probe: tuple[int, ...] = option(
        (1, 8, 64), "Context use: validation loss at n with attention cut to each query's last w "
        "positions, for every w here (evaluation only; rows val_bpb_ctx<w>)")
    ngram_order: int = option(
        5, "Baselines: interpolated Witten-Bell byte n-grams of orders 0 to this (<= 6), scored on the "
        "models' windows (variants ngram-<k>; -1: none)")
    finetune_steps: int = option(
        0, "Fine-tune each base model (--finetune-from) this many steps with every variant but nobias "
        "and sinusoidal, at every s (0: no fine-tune)")
    finetune_from: tuple[str, ...] = option(
        ("exact",), "Base models of the fine-tunes: exact (exact ALiBi), nobias (trained without "
        "positional bias); the exact-ALiBi fine-tune of each is the reference")
    draws: str = option(
        "shared", "Hash draws of positional LSH: shared (one per layer and step, rescaled per head) or "
        "per-head (each head its own independent draw)")
    margin: float = option(
        0.02, "Equivalence margin in bits per byte (> 0): a paired difference is comparable only when "
        "its whole 95% interval lies within +-margin, worse or better only when wholly outside")
    keep_models: str = option(
        "", "Keep every final model in this folder (STEM.pt state dict + STEM.json; "
        "poslsh.lm.load_model reads them)", shown=False)

    def __post_init__(self):
        if not self.variant:
            raise UsageError("--variant must name at least one variant")
        one_of("variant", self.variant, VARIANTS)
        hash_counts("s", self.s)
        at_least("seed", self.seed, 0)
        for name, least in (("seeds", 1), ("layers", 1), ("heads", 1), ("width", 1), ("context", 2),
                            ("batch", 1), ("steps", 1), ("warmup", 0), ("checkpoint_every", 1),
                            ("finetune_steps", 0), ("curve_every", 0), ("curve_batches", 1),
                            ("eval_batches", 2), ("eval_batch", 1), ("swap_trials", 1)):
            at_least(name, getattr(self, name), least)
        head_shape(self.heads, self.width, self.sigmas)
        self.check_training_and_evaluation()

    def check_training_and_evaluation(self) -> None:
        positive_finite("lr", self.lr)
        if not (math.isfinite(self.weight_decay) and self.weight_decay >= 0):
            raise UsageError(f"--weight-decay must be a finite number >= 0 (got {self.weight_decay})")
        if not self.eval_lengths:
            raise UsageError("--eval-lengths must name at least one multiple of --context")
        for name in ("eval_lengths", "swap_s", "context_probe"):
            at_least(name, getattr(self, name), 1)
        if not -1 <= self.ngram_order <= 6:
            raise UsageError(f"--ngram-order accepts -1 (none) to 6 (got {self.ngram_order})")
        positive_finite("margin", self.margin)
        one_of("draws", self.draws, DRAWS)
        one_of("finetune_from", self.finetune_from, FINETUNE_BASES)
        if not self.finetune_from or len(set(self.finetune_from)) != len(self.finetune_from):
            raise UsageError(f"--finetune-from accepts exact, nobias, each at most once "
                             f"(got {','.join(self.finetune_from)})")
        if self.keep_models and not writable_folder(self.keep_models):
            raise UsageError(f"--keep-models: cannot write in '{self.keep_models}'")

    def head_sigmas(self) -> tuple[float, ...]:
        return self.sigmas or press_sigmas(self.heads)


def writable_folder(path: str) -> bool:
    """An existing folder we may write in, or a new one whose parent we may."""
    if os.path.isdir(path):
        return os.access(path, os.W_OK | os.X_OK)
    parent = os.path.dirname(os.path.abspath(path))
    return os.path.isdir(parent) and os.access(parent, os.W_OK | os.X_OK)


@dataclass(frozen=True)
class BenchConfig:
    """`poslsh bench lm`: seconds per training step and peak memory of every variant (bench.py)."""
    n: tuple[int, ...] = option((128, 1024), "Contexts (list)")
    s: tuple[int, ...] = option((1, 4, 10, 20), "Hashes of lsh (and the cost fixed and window match)")
    layers: int = option(4, "Transformer blocks")
    heads: int = option(4, "Attention heads")
    width: int = option(64, "Model width")
    sigmas: tuple[float, ...] = option((), "ALiBi scale per head (default: Press et al.'s slopes)",
                                       shown=False)
    variant: tuple[str, ...] = option(BENCH_POINTS, "Points at each n: " + ", ".join(BENCH_POINTS))
    tokens: int = option(2048, "Bytes per step when --batch is 0: tokens / n windows of n (a multiple "
                         "of every n)")
    batch: int = option(0, "Windows of n per step (0: --tokens / n)")
    repeats: int = option(3, "Timed steps per variant (best kept)")

    def __post_init__(self):
        if not self.n or not self.s or not self.variant:
            raise UsageError("--n, --s and --variant must each name at least one value")
        at_least("n", self.n, 2)
        hash_counts("s", self.s)
        one_of("variant", self.variant, BENCH_POINTS)
        at_least("batch", self.batch, 0)
        for name in ("layers", "heads", "width", "tokens", "repeats"):
            at_least(name, getattr(self, name), 1)
        head_shape(self.heads, self.width, self.sigmas)
        for n in self.n:
            if self.batch == 0 and self.tokens % n != 0:
                raise UsageError(f"--tokens must be a multiple of every --n (a step is tokens / n "
                                 f"windows), got {self.tokens} and n = {n}")

    def head_sigmas(self) -> tuple[float, ...]:
        return self.sigmas or press_sigmas(self.heads)
