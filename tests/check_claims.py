#!/usr/bin/env python3
"""ctest structure.readme_claims_match_tables: the README's claims table
quotes the committed language-model tables, number for number.

A column of the claims table whose header links into docs/results/NAME/
quotes docs/results/NAME/lm.summary.csv (what `poslsh lm` wrote for
configs/NAME.toml). Every quote in such a column, on the rows "LM 1" to
"LM 4", reads

    LABEL: MEAN [LOW, HIGH] VERDICT

a paired difference in bits per byte with its 95% interval over seeds and
its verdict at the run's margin (comparable, worse, better, undecided).
LABEL names the summary row and which difference:

    s = K                          positional LSH trained with s = K
    s = K from exact ALiBi         ... fine-tuned from exact ALiBi
    s = K from no bias             ... fine-tuned from the model without positional bias
    ..., minus fixed blocks        the difference to the paper's fixed blocks
    ..., minus no bias             the difference to no positional bias
    ..., positions [A, B) at M     validation at context M, positions A to B (claim 4)

and otherwise the difference is to exact ALiBi (to its fine-tuned control
for a fine-tune), except on the row "LM 2", whose claim is about no bias.
Each number must equal the table's to the decimals quoted, each verdict
the table's; a number in such a cell that is not part of a quote fails
too, so nothing there escapes the check. And the committed tables must be
those of configs/NAME.toml as committed: every option of its [lm] section
has the value that docs/results/NAME/lm.csv.meta.json records as run (an
edited config makes the tables stale until they are run again).

Usage: check_claims.py [SOURCE_DIR]     (default: the tree this script is in)
       check_claims.py --self-test
  --self-test  the negative control: a quote off by one in its last
               decimal, a wrong verdict, a label naming no row and a bare
               number, each planted in a scratch README, and an option of
               the config changed after the run must be reported; the true
               quotes not
"""
import csv
import json
import pathlib
import re
import sys
import tempfile
import tomllib

NUMBER = r"[+\-−]?\d+\.\d+"
QUOTE = re.compile(rf"(?P<label>[^:;]+?): (?P<mean>{NUMBER}) \[(?P<low>{NUMBER}), "
                   rf"(?P<high>{NUMBER})\] (?P<verdict>comparable|worse|better|undecided)")
LABEL = re.compile(r"s = (?P<s>\d+)(?P<base> from exact ALiBi| from no bias)?"
                   r"(?:, minus (?P<reference>fixed blocks|no bias))?"
                   r"(?:, positions \[(?P<lo>\d+), (?P<hi>\d+)\) at (?P<context>\d+))?")
RESULTS_LINK = re.compile(r"\]\((?:\./)?docs/results/([\w.-]+)/")
PHASES = {None: "train", " from exact ALiBi": "finetune", " from no bias": "finetune-nobias"}
REFERENCES = {"fixed blocks": "vs_fixed_block", "no bias": "vs_nobias"}


def tables(section):
    """Each Markdown table of a section: its header cells and its rows' cells."""
    out, lines = [], section.splitlines() + [""]
    block = []
    for line in lines:
        if line.startswith("|"):
            block.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif block:
            out.append((block[0], block[2:]))
            block = []
    return out


def claims_tables(readme):
    """The tables of the README's claims section that have "LM k" rows."""
    section = readme.split("## What the paper claims", 1)[1].split("\n## ", 1)[0]
    return [t for t in tables(section) if any(r[0].startswith("LM ") for r in t[1])]


def summary_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def training_context(rows):
    """The context the models trained at: the shortest validation context."""
    return str(min(int(r["context"]) for r in rows if r["metric"] == "val_bpb"))


def find_row(rows, label, claim):
    """The summary row a quote's label names and the difference's column
    prefix; (None, why) when it names none."""
    m = LABEL.fullmatch(label.strip())
    if not m:
        return None, f"label '{label.strip()}' is not of the form 's = K[ from ...][, minus ...]'"
    reference = REFERENCES.get(m["reference"], "vs_nobias" if claim == "LM 2" else "vs_exact")
    context = m["context"] or training_context(rows)
    want = {"variant": "lsh", "train_s": m["s"], "phase": PHASES[m["base"]], "eval": "self",
            "context": context, "metric": "val_bpb", "pos_lo": m["lo"] or "",
            "pos_hi": m["hi"] or "", "step": "", "head": ""}
    found = [r for r in rows if all(r[k] == v for k, v in want.items())]
    if len(found) != 1:
        return None, f"label '{label.strip()}' names {len(found)} rows of the table, not one"
    return (found[0], reference), ""


def decimals(text):
    return len(text.split(".")[1])


def same_number(quoted, value):
    q = float(quoted.replace("−", "-"))
    return abs(q - float(value)) <= 0.5 * 10 ** -decimals(quoted) + 1e-12


def check_quote(rows, claim, quote):
    """The problems of one quote, as sentences."""
    found, why = find_row(rows, quote["label"], claim)
    if found is None:
        return [why]
    row, ref = found
    out = []
    for part in ("mean", "low", "high"):
        if not same_number(quote[part], row[f"{ref}_{part}"]):
            out.append(f"'{quote.group(0)}': {part} is {row[f'{ref}_{part}']} in the table")
    if quote["verdict"] != row[f"{ref}_verdict"]:
        out.append(f"'{quote.group(0)}': the table's verdict is '{row[f'{ref}_verdict']}'")
    return out


def check_cell(rows, claim, cell):
    quotes = list(QUOTE.finditer(cell))
    out = [p for q in quotes for p in check_quote(rows, claim, q)]
    rest = QUOTE.sub("", cell)
    out += [f"'{n}' in row {claim} is not part of a quote" for n in re.findall(NUMBER, rest)]
    if not quotes:
        out.append(f"row {claim} quotes nothing from the table")
    return out


def config_problems(source, name):
    """The committed tables ran with configs/NAME.toml's [lm] options as they
    stand (the sidecar's config is the options as resolved for the run)."""
    config = source / "configs" / f"{name}.toml"
    meta = source / "docs" / "results" / name / "lm.csv.meta.json"
    missing = [str(p) for p in (config, meta) if not p.is_file()]
    if missing:
        return [f"{' and '.join(missing)} missing"]
    wanted = tomllib.loads(config.read_text()).get("lm", {})
    ran = tomllib.loads(json.loads(meta.read_text())["config"])
    return [f"configs/{name}.toml sets {key} = {value!r}, its committed tables ran with "
            f"{ran.get(key)!r}: run it again" for key, value in wanted.items()
            if ran.get(key) != value]


def problems(source):
    readme = (source / "README.md").read_text()
    if "## What the paper claims" not in readme:
        return ["README.md has no section '## What the paper claims'"]
    out, checked = [], 0
    for rows, column, title in ((r, c, t) for h, r in claims_tables(readme)
                                for c, t in enumerate(h)):
        link = RESULTS_LINK.search(title)
        if not link:
            continue
        summary = source / "docs" / "results" / link.group(1) / "lm.summary.csv"
        if not summary.is_file():
            out.append(f"column '{title}': {summary} does not exist")
            continue
        table = summary_rows(summary)
        out += [f"{summary.parent.name}: {p}" for p in config_problems(source, summary.parent.name)]
        for cells in rows:
            claim = cells[0].split(":", 1)[0]
            if re.fullmatch(r"LM \d", claim):
                checked += 1
                out += [f"{summary.parent.name}: {p}" for p in check_cell(table, claim, cells[column])]
    if checked == 0:
        out.append("no column of the claims table links into docs/results/NAME/")
    return out


SELF_TEST_SUMMARY = """variant,train_s,phase,eval,eval_s,step,pos_lo,pos_hi,head,context,metric,\
vs_exact_mean,vs_exact_low,vs_exact_high,vs_exact_verdict,vs_fixed_block_mean,vs_fixed_block_low,\
vs_fixed_block_high,vs_fixed_block_verdict,vs_nobias_mean,vs_nobias_low,vs_nobias_high,vs_nobias_verdict
lsh,4,train,self,,,,,,64,val_bpb,0.0312,0.0101,0.0523,undecided,-0.01,-0.02,0.0,undecided,-0.4,-0.5,-0.3,better
lsh,4,finetune,self,,,,,,64,val_bpb,0.011,0.001,0.016,comparable,-0.05,-0.07,-0.03,better,,,,
lsh,4,train,self,,,64,128,,128,val_bpb,0.002,-0.001,0.005,comparable,,,,,,,,
"""

SELF_TEST_CONFIG = "[lm]\nsteps = 150\nsigmas = [2, 4]\n"
SELF_TEST_META = json.dumps({"config": "steps = 150\nsigmas = [2, 4]\nmargin = 0.02\n"})

SELF_TEST_README = """# x
## What the paper claims, and what poslsh finds

| claim | verdict | long contexts ([tables](docs/results/t/report.md)) |
|---|---|---|
| theorem | holds 1.5 | |
| LM 1: a | b | {1} |
| LM 2: a | b | s = 4: −0.400 [−0.500, −0.300] better |
| LM 3: a | b | s = 4 from exact ALiBi: +0.011 [+0.001, +0.016] comparable; s = 4 from exact ALiBi, minus fixed blocks: −0.05 [−0.07, −0.03] better |
| LM 4: a | b | s = 4, positions [64, 128) at 128: +0.002 [−0.001, +0.005] comparable |

## Next
"""


def self_test():
    plants = {
        "s = 4: +0.031 [+0.010, +0.052] undecided": [],
        "s = 4: +0.031 [+0.010, +0.053] undecided": ["high is 0.0523"],
        "s = 4: +0.031 [+0.010, +0.052] comparable": ["verdict is 'undecided'"],
        "s = 5: +0.031 [+0.010, +0.052] undecided": ["names 0 rows"],
        "s = 4: +0.031 [+0.010, +0.052] undecided, about 0.03 of the loss": ["'0.03' in row LM 1"],
    }
    true_cell = next(iter(plants))
    cases = [(cell, SELF_TEST_CONFIG, expected) for cell, expected in plants.items()]
    cases.append((true_cell, SELF_TEST_CONFIG.replace("150", "300"), ["sets steps = 300"]))
    failures = 0
    for cell, config, expected in cases:
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "docs" / "results" / "t").mkdir(parents=True)
            (root / "configs").mkdir()
            (root / "configs" / "t.toml").write_text(config)
            (root / "docs" / "results" / "t" / "lm.csv.meta.json").write_text(SELF_TEST_META)
            (root / "docs" / "results" / "t" / "lm.summary.csv").write_text(SELF_TEST_SUMMARY)
            (root / "README.md").write_text(SELF_TEST_README.replace("{1}", cell))
            found = problems(root)
        ok = len(found) == len(expected) and all(any(e in f for f in found) for e in expected)
        if not ok:
            failures += 1
            print(f"self-test: README cell '{cell}', config {config!r}: expected "
                  f"{expected or 'no problem'}, got {found}")
    print("self-test:", "FAIL" if failures else "every planted mismatch was reported")
    return 1 if failures else 0


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    source = pathlib.Path(argv[1]) if len(argv) > 1 else pathlib.Path(__file__).resolve().parents[1]
    found = problems(source)
    for p in found:
        print("README claims table:", p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
