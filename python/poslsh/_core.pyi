"""Type stubs of the extension poslsh._core (python/poslsh_module.cpp and its
bindings in python/bindings/); the docstrings are the module's own
(help(poslsh.<name>))."""
from typing import Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

Floats = Union[float, Sequence[float]]
ArrayLike = npt.ArrayLike


class SpectralError(TypedDict):
    value: float
    lower: float
    upper: float
    accuracy: float
    iterations: int
    matvecs: int
    status: str


def draw_hashes(seed: int, trial: int, s: int, sigma: float) -> Tuple[npt.NDArray[np.float64],
                                                                      npt.NDArray[np.float64]]: ...
def alibi_sigmas(heads: int) -> list[float]: ...
def block_starts(pitch: float, shift: float, n: int) -> npt.NDArray[np.int64]: ...
def mask_mean_matvec(pitch: ArrayLike, shift: ArrayLike, n: int, x: ArrayLike,
                     causal: bool = False) -> npt.NDArray[np.float64]: ...
def spectral_error(n: int, sigma: float, s: int, seed: int = 0, trial: int = 0, causal: bool = False,
                   tol: float = ..., max_iterations: int = ..., starts: int = ..., upper_q: float = ...,
                   upper_width: float = ..., threads: int = 1) -> SpectralError: ...
def max_error(n: int, sigma: float, s: int, seed: int = 0, trial: int = 0, causal: bool = False,
              threads: int = 1) -> dict[str, Union[float, int]]: ...
def b_max(n: int, sigma: float, s: int, seed: int = 0, trial: int = 0) -> int: ...
def exact_attention(q: ArrayLike, k: ArrayLike, v: ArrayLike, sigma: Floats, causal: bool = False,
                    scale: Optional[float] = None, threads: int = 1) -> np.ndarray: ...
def lsh_attention(q: ArrayLike, k: ArrayLike, v: ArrayLike, sigma: Optional[Floats] = None,
                  s: Optional[int] = None, seed: Optional[int] = None, trial: Optional[int] = None,
                  causal: bool = False, scale: Optional[float] = None,
                  independent_heads: bool = False, threads: int = 1, *,
                  pitch: Optional[ArrayLike] = None, shift: Optional[ArrayLike] = None) -> np.ndarray: ...


class VerifyLine(TypedDict):
    name: str
    verdict: str  # "PASS", "FAIL", "n/a"
    detail: str
    text: str  # the line `poslsh verify` prints: "PASS  name: detail"
    remedy: str  # what would let an undecided line decide ("use more trials ..."), else ""


class VerifyResult(TypedDict):
    lines: list[VerifyLine]
    passed: bool  # no line FAILs: `poslsh verify` exits 0
    summary: str  # the closing "checks: ..." line
    undecided: list[str]  # families no line could decide (what `verify --strict` refuses)
    samples: int
    trials: int
    detectable_scale: float


def verify_hashes(pitch: ArrayLike, shift: ArrayLike, sigma: float, n: int,
                  trial: Optional[ArrayLike] = None, batch: int = 16, points: int = 24,
                  alpha: float = 1e-3) -> VerifyResult: ...
def verify_blocks(starts: Sequence[ArrayLike], sigma: float, n: int,
                  trial: Optional[ArrayLike] = None, batch: int = 16, points: int = 24,
                  alpha: float = 1e-3) -> VerifyResult: ...


class Kernel:
    @staticmethod
    def laplace(sigma: float) -> "Kernel": ...
    @staticmethod
    def triangle(width: float) -> "Kernel": ...
    @staticmethod
    def power_law(sigma: float, alpha: float) -> "Kernel": ...
    @staticmethod
    def stretched_exponential(sigma: float, beta: float) -> "Kernel": ...
    @staticmethod
    def tabulated(values: Sequence[float]) -> "Kernel": ...
    @staticmethod
    def from_bias(bias: Sequence[float]) -> "Kernel": ...
    def __call__(self, t: Sequence[float]) -> npt.NDArray[np.float64]: ...
    def hashes(self, seed: int, trial: int, s: int) -> Tuple[npt.NDArray[np.float64],
                                                             npt.NDArray[np.float64]]: ...
    @property
    def family(self) -> str: ...
    @property
    def spec(self) -> str: ...
    @property
    def pitch_probabilities(self) -> list[float]: ...


def framework_distance(values: Sequence[float]) -> Tuple[int, float]: ...
