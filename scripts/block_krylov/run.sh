#!/bin/bash
# Does block Lanczos reach the clustered spectral norm in fewer products than
# one vector? (docs/design-notes.md, "Why some draws are slow".)
# n = 65536, sigma = 16, s = 64, seed 3, trial 0 (a clustered draw): reference
# eigenvalues by eigsh, then block sizes b = 1, 2, 4, 8 with full
# reorthogonalisation (each method's best case), two random starts each, and
# the products each needs to reach 1e-4 ... 1e-7 relative error.
#   scripts/block_krylov/run.sh [WORK_DIR]     (about 7 minutes on 2 cores)
# Needs numpy and scipy (PYTHON, default /usr/bin/python3) and a built poslsh
# (POSLSH, default build/bin/poslsh). The table is WORK_DIR/summary.txt.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="${PYTHON:-/usr/bin/python3}"
POSLSH="${POSLSH:-$ROOT/build/bin/poslsh}"
WORK="${1:-$(mktemp -d)}"
mkdir -p "$WORK/runs"
cd "$WORK"
T0=$(date +%s)
[ -f blocks.csv ] || "$POSLSH" sample --n 65536 --sigma 16 --s 64 --seed 3 --trial 0 --blocks --out blocks.csv
"$PY" "$HERE/check_op.py"
[ -f ref.json ] || "$PY" "$HERE/ref.py" > ref.log
"$PY" "$HERE/lanczos.py" --b 1 --seed 1 --stagnate --out runs/b1_s1.json > runs/b1_s1.log
for seed in 1 2; do
  for b in 8 4 2 1; do
    [ "$b$seed" = "11" ] && continue
    "$PY" "$HERE/lanczos.py" --b $b --seed $seed --out runs/b${b}_s${seed}.json > runs/b${b}_s${seed}.log
  done
done
"$PY" "$HERE/summarize.py" | tee summary.txt
echo "total wall $(( $(date +%s) - T0 )) s, in $WORK" | tee -a summary.txt
