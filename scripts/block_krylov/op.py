# The operator E = M~ - L* of `poslsh convergence` in numpy (the logic of
# scripts/bench_scipy_eigsh.py), vectorised over columns, on blocks.csv in the
# working directory (`poslsh sample --blocks`).
import os
import sys

import numpy as np
from scipy.signal import lfilter
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_scipy_eigsh import error_operator  # noqa: E402

N, SIGMA, S = 65536, 16.0, 64

def load(blocks_csv="blocks.csv"):
    with open(blocks_csv) as f:
        hdr = f.readline().strip().split(",")
    assert hdr[1] == "start" and hdr[2] == "end", hdr
    data = np.loadtxt(blocks_csv, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    return data[:, 1], data[:, 2]

def make(n=N, sigma=SIGMA, s=S, blocks_csv="blocks.csv"):
    lo, hi = load(blocks_csv)
    r = np.exp(-1.0 / sigma)
    nb = lo.size
    # D (n+1 x nb): +1 at (lo,k), -1 at (hi,k); d = D @ v  == bincount(lo,v)-bincount(hi,v)
    D = sp.csr_matrix((np.concatenate([np.ones(nb), -np.ones(nb)]),
                       (np.concatenate([lo, hi]), np.concatenate([np.arange(nb)] * 2))), shape=(n + 1, nb))
    count = [0]

    # The one-vector reference: bench_scipy_eigsh's operator itself.
    matvec1 = error_operator(n, sigma, blocks_csv, s)[0].matvec

    def matmat(X):  # vectorised along axis 0, X is n x b
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        count[0] += X.shape[1]
        p = np.zeros((n + 1, X.shape[1]))
        np.cumsum(X, axis=0, out=p[1:])
        v = p[hi] - p[lo]
        d = D @ v
        mx = np.cumsum(d, axis=0)[:n] / s
        f = lfilter([1.0], [1.0, -r], X, axis=0)
        g = lfilter([1.0], [1.0, -r], X[::-1], axis=0)[::-1]
        return mx - (f + g - X)

    def mv(x):
        return matmat(np.asarray(x).reshape(n, -1)).ravel()

    A = LinearOperator((n, n), matvec=mv, matmat=matmat, dtype=np.float64)
    return A, matmat, matvec1, count
