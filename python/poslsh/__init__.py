"""Positional LSH for ALiBi attention.

The numerical core (hashes, mask-mean products, spectral and max-norm errors,
exact and positional-LSH attention) is the C++ library poslsh::core, bound in
the extension ``poslsh._core``; every function below is re-exported from it
and equals, bit for bit, what the ``poslsh`` command-line tool computes for
the same arguments. ``verify_hashes`` and ``verify_blocks`` run ``poslsh
verify``'s checks on another sampler's hashes or blocks and return the lines
it prints (docs/python-verify.md). ``poslsh.lm`` trains small ALiBi language
models with positional-LSH attention in PyTorch (imported on demand: torch is
optional).
"""
from ._core import (  # noqa: F401  (the public API)
    Kernel,
    __version__,
    alibi_sigmas,
    b_max,
    block_starts,
    draw_hashes,
    exact_attention,
    framework_distance,
    lsh_attention,
    mask_mean_matvec,
    max_error,
    spectral_error,
    verify_blocks,
    verify_hashes,
)

__all__ = [
    "Kernel",
    "alibi_sigmas",
    "b_max",
    "block_starts",
    "draw_hashes",
    "exact_attention",
    "framework_distance",
    "lsh_attention",
    "mask_mean_matvec",
    "max_error",
    "spectral_error",
    "verify_blocks",
    "verify_hashes",
]
