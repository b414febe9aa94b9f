"""The text the language models learn: real English from a Debian package.

The default corpus is the King James Bible as the Debian package bible-kjv
prints it (`bible -f "Gen1:1-Rev22:21"`, 4.4 MB, from bible-kjv-text). Each
verse's reference ("Ge1:1 ") is dropped, so the models see one verse of
prose per line. Tokens are bytes (0..255). The split is fixed and contiguous:
the first 90% trains, the next 5% validates, the last 5% tests, so no verse is
in two parts and every run of every variant sees the same bytes.

A missing corpus is an error naming the package to install, never a silent
fallback to synthetic text.
"""
from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import UsageError

KJV = "bible-kjv"
KJV_RANGE = "Gen1:1-Rev22:21"
TRAIN_FRACTION, VALIDATION_FRACTION = 0.90, 0.05
_VERSE_REFERENCE = re.compile(rb"^\S+?\d+:\d+ ", re.MULTILINE)


class CorpusError(UsageError):
    """The corpus cannot be read; the message says what to install or fix."""


@dataclass(frozen=True)
class Corpus:
    name: str
    sha256: str  # of the bytes the models see (after the references are dropped)
    train: np.ndarray  # uint8
    validation: np.ndarray
    test: np.ndarray


def kjv_text() -> bytes:
    """The King James Bible, one verse a line, references dropped."""
    bible = shutil.which("bible")
    if bible is None:
        raise CorpusError(f"lm: corpus '{KJV}' needs the Debian package {KJV} (and bible-kjv-text): "
                          f"apt-get install {KJV} (scripts/deps installs it)")
    r = subprocess.run([bible, "-f", KJV_RANGE], capture_output=True, timeout=120)
    if r.returncode != 0 or len(r.stdout) < 1_000_000:
        raise CorpusError(f"lm: `bible -f {KJV_RANGE}` failed (exit {r.returncode}, "
                          f"{len(r.stdout)} bytes): reinstall the Debian packages {KJV} bible-kjv-text")
    return _VERSE_REFERENCE.sub(b"", r.stdout)


def corpus_text(name: str) -> bytes:
    """`bible-kjv`, or the path of a text file of the user's."""
    if name == KJV:
        return kjv_text()
    path = Path(name)
    if not path.is_file():
        raise CorpusError(f"lm: corpus must be '{KJV}' or a readable text file (got '{name}')")
    text = path.read_bytes()
    if len(text) < 1000:
        raise CorpusError(f"lm: corpus '{name}' has {len(text)} bytes; at least 1000 are needed")
    return text


def split(text: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = np.frombuffer(text, dtype=np.uint8)
    a = int(len(data) * TRAIN_FRACTION)
    b = a + int(len(data) * VALIDATION_FRACTION)
    return data[:a], data[a:b], data[b:]


def load(name: str) -> Corpus:
    text = corpus_text(name)
    train, validation, test = split(text)
    return Corpus(name, hashlib.sha256(text).hexdigest(), train, validation, test)
