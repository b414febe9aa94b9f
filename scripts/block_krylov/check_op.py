# The numpy operator vectorised over columns against the one-vector reference
# logic, and its symmetry.
import numpy as np, time
from op import make
A, mm, mv1, cnt = make()
rng = np.random.default_rng(0)
X = rng.standard_normal((65536, 8)); Y = rng.standard_normal((65536, 8))
t=time.perf_counter(); EX = mm(X); t1=time.perf_counter()-t
ref = np.column_stack([mv1(X[:, j]) for j in range(8)])
diff, scale = np.abs(EX - ref).max(), np.abs(ref).max()
sym = np.abs(Y.T @ EX - (mm(Y)).T @ X).max() / np.abs(Y.T @ EX).max()
print("max diff vs reference", diff, "scale", scale)
print("symmetry", sym)
assert diff <= 1e-12 * scale and sym <= 1e-10, "the vectorised operator is not the reference one"
t=time.perf_counter()
for _ in range(20): mm(X[:, :1])
print("1-col matvec s", (time.perf_counter()-t)/20, " 8-col", t1)
t=time.perf_counter()
for _ in range(20): mv1(X[:, 0])
print("ref matvec s", (time.perf_counter()-t)/20)
t=time.perf_counter()
for _ in range(5): mm(X[:, :4])
print("4-col s", (time.perf_counter()-t)/5)
