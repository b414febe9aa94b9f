"""The example program's numbers (KEY=VALUE lines) against the row `poslsh
convergence` wrote for the same (n, sigma, s, seed): equal bit for bit.
Usage: example_matches_cli.py EXAMPLE_OUTPUT CONVERGENCE_CSV"""
import csv
import sys

got = dict(kv.split("=", 1) for line in open(sys.argv[1]) for kv in line.split())
row = next(csv.DictReader(open(sys.argv[2])))
columns = ["spectral_error", "spectral_lower", "spectral_upper", "spectral_bound", "max_error",
           "max_bound"]
bad = [f"{c}: example {got[c]} vs CLI {row[c]}" for c in columns if float(got[c]) != float(row[c])]
if bad:
    sys.exit("; ".join(bad))
print(f"example = CLI on {len(columns)} columns (spectral_error {row['spectral_error']})")
