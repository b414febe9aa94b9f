#!/usr/bin/python3
# Summary table of the runs in runs/*.json against ref.json (see run.sh).
import json, glob, os
import numpy as np
ref = json.load(open("ref.json"))
lam = ref["SA30"]["vals"][0]
print(f"lambda_min (eigsh SA k=30 ncv=120) = {lam:.15f}   (k=6 ncv=60: {ref['SA6']['vals'][0]:.15f})")
print(f"lambda_max (eigsh LA k=6 ncv=60)   = {ref['LA6']['vals'][-1]:.15f}")
v = np.array(ref["SA30"]["vals"])
relgap = np.abs(v - lam) / abs(lam)
print("rel gaps of the 30 lowest to lambda_min:", " ".join(f"{g:.2e}" for g in relgap[1:]))
for t in [1e-5, 1e-4, 1e-3]:
    print(f"  # eigenvalues within {t:g} rel of lambda_min (incl. itself): {(relgap <= t).sum()}")
T = ["0.0001", "1e-05", "1e-06", "1e-07"]
rows = {}
print(f"\n{'b':>2} {'seed':>4} " + " ".join(f"{t:>8}" for t in T) + f" {'mv_run':>7} {'final_rel':>10} {'wall_s':>7} {'orth':>8} {'2nd':>4}")
for f in sorted(glob.glob("runs/*.json")):
    r = json.load(open(f))
    rows[(r["b"], r["seed"])] = r
for (b, s), r in sorted(rows.items()):
    cells = [str(r["first"][t]) if r["first"][t] is not None else "> cap" if r["matvecs"] >= 4000 - b else "n/a" for t in T]
    print(f"{b:>2} {s:>4} " + " ".join(f"{c:>8}" for c in cells) +
          f" {r['matvecs']:>7} {r['final_rel']:>10.2e} {r['wall_s']:>7.1f} {r['orth_loss_sampled']:>8.1e} {r['second_passes']:>4}")
print("\nratio (block matvecs to 1e-6) / (b=1 matvecs to 1e-6), same seed:")
for (b, s), r in sorted(rows.items()):
    if b == 1 or (1, s) not in rows: continue
    x, y = r["first"]["1e-06"], rows[(1, s)]["first"]["1e-06"]
    print(f"  b={b} seed={s}: " + (f"{x / y:.2f}" if x and y else f"block {x} / single {y}"))
if (1, 1) in rows:
    r = rows[(1, 1)]
    print(f"\ncross-check: b=1 seed 1 run to stagnation: {r['matvecs']} matvecs, final Ritz {r['final_theta']:.15f}, "
          f"rel diff to lambda_ref {r['final_rel']:.2e}")
