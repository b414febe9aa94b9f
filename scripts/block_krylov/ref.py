# Reference eigenvalues of E by eigsh (tol 1e-12), with residuals -> ref.json.
import numpy as np, time, json
from scipy.sparse.linalg import eigsh
from op import make
A, mm, mv1, cnt = make()
out = {}
for which, k, ncv in [("LA", 6, 60), ("SA", 6, 60), ("SA", 30, 120)]:
    cnt[0] = 0; t = time.perf_counter()
    w, V = eigsh(A, k=k, which=which, tol=1e-12, ncv=ncv, v0=np.random.default_rng(123).standard_normal(65536))
    w = np.sort(w)
    R = mm(V) - V * w
    res = np.linalg.norm(R, axis=0)
    print(which, k, ncv, "matvecs", cnt[0], "time %.1f" % (time.perf_counter() - t))
    for wi, ri in zip(w, res): print("  %.15f  resid %.2e" % (wi, ri))
    out[f"{which}{k}"] = dict(vals=w.tolist(), res=res.tolist())
json.dump(out, open("ref.json", "w"), indent=1)
