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
    sinusoidal control             the model with absolute positions (claim 4's control)
    order-K n-gram                 the byte n-gram baseline of order K (minus exact ALiBi)
    ..., minus its loss at n       the loss beyond n minus the model's own at n, net of
                                   exact ALiBi's same difference (vs_n)
    ..., positions [A, B) at M     validation at context M, positions A to B (claim 4)
    ..., on the test split         the test windows instead of the validation windows

and otherwise the difference is to exact ALiBi (to its fine-tuned control
for a fine-tune), except on the row "LM 2", whose claim is about no bias.
Each number must equal the table's to the decimals quoted, each verdict
the table's; a number in such a cell that is not part of a quote fails
too, so nothing there escapes the check. And the committed tables must be
those of configs/NAME.toml as committed: every option of its [lm] section
has the value that docs/results/NAME/lm.csv.meta.json records as run (an
edited config makes the tables stale until they are run again).

The paragraph just above the claims table describes the runs: from a
link to configs/NAME.toml to the next such link it speaks of NAME, and
each of its phrases

    n = N, N layers, width N, σ = A to B, N steps, N seeds, s = A, B, C
                                   must be NAME's config (its [lm] options)
    exact ALiBi ends at X          exact ALiBi's validation bits per byte at n
    X from the bytes beyond the last W
                                   the context-use probe's gain (val_bpb_beyondW)
    ±X margin                      (before the first link) every quoted run's margin

must hold, the numbers to the decimals quoted; a decimal number there that
no phrase covers fails, as in the table.

The claims row on kernels beyond ALiBi ("| kernels beyond ALiBi ...")
quotes the frontier run (configs/kernels.toml, docs/results/kernels/):
"window more accurate in W of M (kernel, σ, n, s), LSH in L, undecided
in U" must be the counts of the committed check lines (checks.csv) of its
frontier table; the run's page (docs/results/kernels/README.md) quotes
LSH's and the window's mean error per kernel and sigma at the largest n and
s, "LSH vs WINDOW (K keys)", each to its significant digits as frontier.csv
gives them.

The results tables of every run's page (docs/results/NAME/README.md) are
checked the same way: in a section headed "## Measured: ... (`configs/NAME.toml`)" whose run is
committed (docs/results/NAME/lm.summary.csv), every table whose first
header is "model (from scratch)" has rows named

    exact ALiBi, positional LSH, s = K, window, cost of s = K / L,
    shifted fixed grids, cost of s = K / L, fixed blocks, no positional bias,
    sinusoidal positions, byte n-gram, order K / L   (a parenthesis may follow)

(a row of several models separates their values by " / ") and columns

    validation bpb at n      mean [low, high] (the 95% seed interval) or mean
    minus exact ALiBi ...    vs_exact: mean [low, high] or mean
    verdict at ...           vs_exact's verdict
    keys per query           the mean keys per query over heads
    CPU s per step           step_cpu_seconds
    test bpb at n            the test split's bits per byte: mean [low, high] or mean
    from beyond W bytes      the context-use probe's gain (val_bpb_beyondW)

each value equal to the summary's to the decimals printed. A table whose
first header is "exact ALiBi, run" has a run per row, "`NAME`: N steps,
K seeds" (the phrases of the claims paragraph, checked against
configs/NAME.toml), and the same columns for exact ALiBi read from
docs/results/NAME/lm.summary.csv, so one table can line up several runs.

The tables themselves are checked against their sidecar and each other:
- the sidecar's git_commit must be clean (no "-dirty": the binary was built
  from a tree with uncommitted changes, so the commit does not say what ran).
  A table made before this check may be kept as a declared legacy table: its
  folder's README.md names that exact commit in a line "Legacy table:
  git_commit COMMIT" (a note is printed, not a failure; any other dirty
  commit still fails, so the excuse covers that run only);
- lm.csv's bytes must hash to the sidecar's csv_fnv1a64 (FNV-1a 64, what the
  runner records of the table it wrote: src/runner/sweep.cpp) and hold its
  `rows` rows;
- a run made in shards (`--shard K/N`) may commit them, finished ones while it
  is in progress, in docs/results/NAME/shards/lm.K.csv: each must be its
  sidecar's table (hash, rows) from a clean commit, shard K by its sidecar, of
  configs/NAME.toml as it stands, and all of them slices of one N from one
  commit (what `poslsh merge` takes); the run's README quotes each one's cost
  row as its files give it (finish time, wall seconds and CPU from the
  sidecar; cell-seconds, exact ALiBi's s/step and the other variants' range
  from the table), and no other; once merged, the run's lm.csv must be the
  shards its sidecar's merged_from names, concatenated in shard order (what
  `poslsh merge` writes), so the claims quote the shards' own rows;
- a run's README that quotes its `bench_lm.csv` (the sentence after "column
  `bytes_per_cpu_second`):") quotes each variant's bytes per CPU second as
  the file has it, rounded to the integer, and no other number;
- lm.summary.csv must be what lm.csv gives: each row's seeds, mean and 95%
  seed interval, and every paired difference (vs_exact, vs_fixed_block,
  vs_nobias, vs_n: mean, interval, verdict at the margin) recomputed here as
  experiments/lm/lm_checks.cpp computes them (seed means, differences paired by
  seed, a seedless baseline paired with every seed, vs_n net of exact
  ALiBi's, Student-t 95%), to 1e-9.

Usage: check_claims.py [SOURCE_DIR]     (default: the tree this script is in)
       check_claims.py --self-test
  --self-test  the negative control: a quote off by one in its last
               decimal, a wrong verdict, a label naming no row and a bare
               number, each planted in a scratch README, and an option of
               the config changed after the run must be reported; the true
               quotes not. In the paragraph above the table: each phrase
               (a level, a probe gain, a config value, the margin) edited,
               a bare number added and the config link removed. In a
               results table of a run's page (docs/results/NAME/README.md): a mean, an
               interval bound and a verdict edited, a row naming no
               summary row, a row of two models with one value, an
               unknown row name. On a scratch copy of the committed lm-long tables:
               one value of lm.csv edited (the hash and the recomputed
               summary must both fail), one interval bound of the summary
               edited, and the legacy declaration removed (the dirty commit
               must be reported); the copy as committed passes. In a
               run's shards: a table, a shard number, a shard count, a
               commit, a dirty tree, the config and each column of a cost row edited;
               a merged table missing a shard's rows, with its shards swapped,
               or naming fewer shards. In a run's bench sentence: a value, a
               pair's second value, a pair's s, and a bare number. And the Student-t quantiles
               against closed forms (df 1, 2)
"""
import csv
import functools
import json
import math
import pathlib
import re
import shutil
import sys
import tempfile
import tomllib

NUMBER = r"[+\-−]?\d+\.\d+"
QUOTE = re.compile(rf"(?P<label>[^:;]+?): (?P<mean>{NUMBER}) \[(?P<low>{NUMBER}), "
                   rf"(?P<high>{NUMBER})\] (?P<verdict>comparable|worse|better|undecided)")
LABEL = re.compile(r"(?:s = (?P<s>\d+)|(?P<control>sinusoidal control)|order-(?P<order>\d) n-gram)"
                   r"(?P<base> from exact ALiBi| from no bias)?"
                   r"(?:, minus (?P<reference>fixed blocks|no bias|its loss at n))?"
                   r"(?:, positions \[(?P<lo>\d+), (?P<hi>\d+)\) at (?P<context>\d+))?"
                   r"(?P<test>, on the test split)?")
RESULTS_LINK = re.compile(r"\]\((?:\./)?(?:docs/)?results/([\w.-]+)/")
PHASES = {None: "train", " from exact ALiBi": "finetune", " from no bias": "finetune-nobias"}
REFERENCES = {"fixed blocks": "vs_fixed_block", "no bias": "vs_nobias", "its loss at n": "vs_n"}


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
        return None, (f"label '{label.strip()}' is not of the form 's = K[ from ...][, minus ...]' "
                      "(or 'sinusoidal control' or 'order-K n-gram' in place of 's = K')")
    reference = REFERENCES.get(m["reference"], "vs_nobias" if claim == "LM 2" else "vs_exact")
    context = m["context"] or training_context(rows)
    variant = "lsh" if m["s"] else "sinusoidal" if m["control"] else f"ngram-{m['order']}"
    want = {"variant": variant, "train_s": m["s"] or "",
            "phase": "baseline" if m["order"] else PHASES[m["base"]], "eval": "self",
            "context": context, "metric": "test_bpb" if m["test"] else "val_bpb",
            "pos_lo": m["lo"] or "", "pos_hi": m["hi"] or "", "step": "", "head": ""}
    found = [r for r in rows if all(r[k] == v for k, v in want.items())]
    if len(found) != 1:
        return None, f"label '{label.strip()}' names {len(found)} rows of the table, not one"
    return (found[0], reference), ""


def decimals(text):
    return len(text.split(".")[1]) if "." in text else 0


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


CONFIG_PHRASES = [
    (re.compile(r"\bn = (\d+)"), lambda c: [c.get("context")]),
    (re.compile(r"\b(\d+) layers"), lambda c: [c.get("layers")]),
    (re.compile(r"\bwidth (\d+)"), lambda c: [c.get("width")]),
    (re.compile(r"σ = (\d+) to (\d+)"), lambda c: [min(c["sigmas"]), max(c["sigmas"])] if c.get("sigmas") else [None]),
    (re.compile(r"\b(\d+) steps"), lambda c: [c.get("steps")]),
    (re.compile(r"\b(\d+) seeds"), lambda c: [c.get("seeds")]),
    (re.compile(r"\bs = (\d+(?:, \d+)*)"), lambda c: [c.get("s")]),
]
CONFIG_LINK = re.compile(r"\[[^\]]*\]\((?:\./|\.\./)?configs/([\w.-]+)\.toml\)")
EXACT_LEVEL = re.compile(rf"exact ALiBi ends at (?P<mean>{NUMBER})")
PROBE_GAIN = re.compile(rf"(?P<mean>{NUMBER}) from the bytes beyond the last (?P<w>\d+)")
MARGIN = re.compile(rf"±(?P<margin>{NUMBER}) margin")


def claims_paragraph(readme):
    """The paragraph just above the claims section's first LM table."""
    section = readme.split("## What the paper claims", 1)[1].split("\n## ", 1)[0]
    paragraphs = section.split("\n\n")
    table_at = next((i for i, p in enumerate(paragraphs) if p.startswith("|") and "\n| LM " in p), None)
    return " ".join(paragraphs[table_at - 1].split()) if table_at else ""


def spoken_value(match, i):
    text = match.group(i + 1)
    return [int(v) for v in text.split(", ")] if ", " in text else float(text)


def config_phrase_problems(name, config, segment):
    out = []
    for pattern, wanted in CONFIG_PHRASES:
        for m in pattern.finditer(segment):
            for i, want in enumerate(wanted(config)):
                said = spoken_value(m, i)
                if want is None or (said != want if isinstance(said, list) else float(said) != float(want)):
                    out.append(f"'{m.group(0)}': configs/{name}.toml has {want!r}")
    return out


def level_row(rows, metric):
    n = training_context(rows)
    found = [r for r in rows if (r["variant"], r["phase"], r["eval"], r["metric"], r["context"],
                                 r["pos_lo"], r["step"], r["head"], r["eval_s"]) ==
             ("exact", "train", "self", metric, n, "", "", "", "")]
    return found[0] if len(found) == 1 else None


def level_problems(rows, segment):
    out = []
    for pattern, metric in ((EXACT_LEVEL, lambda m: "val_bpb"),
                            (PROBE_GAIN, lambda m: f"val_bpb_beyond{m['w']}")):
        for m in pattern.finditer(segment):
            row = level_row(rows, metric(m))
            if row is None:
                out.append(f"'{m.group(0)}': the table has no exact ALiBi row {metric(m)} at n")
            elif not same_number(m["mean"], row["mean"]):
                out.append(f"'{m.group(0)}': the table's mean is {row['mean']}")
    return out


def uncovered_numbers(segment):
    rest = segment
    for pattern in (EXACT_LEVEL, PROBE_GAIN, MARGIN):
        rest = pattern.sub("", rest)
    return [f"'{n}' in the paragraph above the claims table is not part of a quote"
            for n in re.findall(NUMBER, rest)]


def paragraph_problems(source, readme):
    """The paragraph above the claims table against the configs and tables it names."""
    paragraph = claims_paragraph(readme)
    links = list(CONFIG_LINK.finditer(paragraph))
    if not links:
        return ["the paragraph above the claims table links to no configs/NAME.toml"]
    out = uncovered_numbers(paragraph)
    margins = set()
    for link, end in zip(links, [l.start() for l in links[1:]] + [len(paragraph)]):
        name, segment = link.group(1), paragraph[link.end():end]
        config_path = source / "configs" / f"{name}.toml"
        summary = source / "docs" / "results" / name / "lm.summary.csv"
        if not (config_path.is_file() and summary.is_file()):
            out.append(f"the paragraph above the claims table names {name}, which has no config "
                       "and committed summary")
            continue
        config = tomllib.loads(config_path.read_text()).get("lm", {})
        margins.add(config.get("margin"))
        out += [f"{name}: {p}" for p in config_phrase_problems(name, config, segment)]
        out += [f"{name}: {p}" for p in level_problems(summary_rows(summary), segment)]
    for m in MARGIN.finditer(paragraph[:links[0].start()]):
        if any(not same_number(m["margin"], v) for v in margins):
            out.append(f"'{m.group(0)}': the quoted runs' margins are {sorted(margins)}")
    return out


DOC_ROW = re.compile(r"(?P<name>exact ALiBi|positional LSH, s = (?P<s>\d+)|"
                     r"(?P<matched>window|shifted fixed grids), cost of s = (?P<costs>\d+(?: / \d+)*)|"
                     r"fixed blocks|no positional bias|sinusoidal positions|"
                     r"byte n-gram, order (?P<orders>\d+(?: / \d+)*))(?: \(.*\)|, .*)?")
DOC_VARIANTS = {"exact ALiBi": "exact", "fixed blocks": "fixed-block", "no positional bias": "nobias",
                "sinusoidal positions": "sinusoidal", "window": "window", "shifted fixed grids": "fixed"}
DOC_SECTION = re.compile(r"^## Measured: .*\(`configs/([\w.-]+)\.toml`\)$", re.M)
DOC_VALUE = re.compile(rf"^(?P<mean>{NUMBER}|\d+)(?: \[(?P<low>{NUMBER}), (?P<high>{NUMBER})\])?$")


def doc_row_keys(label):
    """(variant, train_s, phase) of each model a row of a results table names; None if none."""
    m = DOC_ROW.fullmatch(label)
    if not m:
        return None
    if m["s"]:
        return [("lsh", m["s"], "train")]
    if m["matched"]:
        return [(DOC_VARIANTS[m["matched"]], k, "train") for k in m["costs"].split(" / ")]
    if m["orders"]:
        return [(f"ngram-{k}", "", "baseline") for k in m["orders"].split(" / ")]
    return [(DOC_VARIANTS[m["name"]], "", "train")]


def doc_column(header):
    """The summary columns (mean, low, high, verdict) a results table's column quotes, and its metric."""
    probe = re.fullmatch(r"from beyond (\d+) bytes", header)
    if probe:
        return ("mean", "seed_ci_low", "seed_ci_high", None), f"val_bpb_beyond{probe.group(1)}"
    if header.startswith("test bpb at n"):
        return ("mean", "seed_ci_low", "seed_ci_high", None), "test_bpb"
    for start, columns in (("validation bpb at n", ("mean", "seed_ci_low", "seed_ci_high", None)),
                           ("minus exact ALiBi", ("vs_exact_mean", "vs_exact_low", "vs_exact_high", None)),
                           ("verdict at", (None, None, None, "vs_exact_verdict")),
                           ("keys per query", ("mean", None, None, None)),
                           ("CPU s per step", ("step_cpu_seconds", None, None, None))):
        if header.startswith(start):
            return columns, "keys_per_query" if start == "keys per query" else "val_bpb"
    return None, None


def doc_summary_row(rows, key, metric):
    variant, s, phase = key
    found = [r for r in rows if (r["variant"], r["train_s"], r["phase"], r["eval"], r["metric"],
                                 r["context"], r["pos_lo"], r["step"], r["head"], r["eval_s"]) ==
             (variant, s, phase, "self", metric, training_context(rows), "", "", "", "")]
    return found[0] if len(found) == 1 else None


def doc_cell_problems(rows, keys, header, cell):
    columns, metric = doc_column(header)
    if columns is None or cell == "":
        return []
    parts = cell.split(" / ")
    if len(parts) != len(keys):
        return [f"'{cell}' under '{header}': {len(parts)} values for {len(keys)} models"]
    out = []
    for key, part in zip(keys, parts):
        row = doc_summary_row(rows, key, metric)
        if row is None:
            out.append(f"'{part}' under '{header}': the summary has no row {key} {metric} at n")
            continue
        if columns[3]:
            if part != row[columns[3]]:
                out.append(f"'{part}' under '{header}' for {key}: the summary says '{row[columns[3]]}'")
            continue
        m = DOC_VALUE.fullmatch(part)
        if not m:
            out.append(f"'{part}' under '{header}' for {key} is not 'MEAN [LOW, HIGH]' or 'MEAN'")
            continue
        for group, column in zip(("mean", "low", "high"), columns):
            if m[group] is not None and (column is None or not same_number(m[group], row[column])):
                out.append(f"'{part}' under '{header}' for {key}: {group} is {row.get(column)} in the summary")
    return out


RUN_ROW = re.compile(r"`(?P<name>[\w.-]+)`: .*")


def folder_problems(source, name, notes, checked):
    """The claims table's checks of docs/results/NAME (its config, its sidecar,
    its summary recomputed from lm.csv), once per folder."""
    folder = source / "docs" / "results" / name
    if folder in checked:
        return []
    checked.append(folder)
    return [f"{name}: {p}" for p in config_problems(source, name)] + table_problems(folder, notes)


def model_table_problems(rows, header, body):
    """A "model (from scratch)" table: a model per row, one run's summary."""
    out = []
    for cells in body:
        keys = doc_row_keys(cells[0])
        if keys is None:
            out.append(f"row '{cells[0]}' names no model of the summary")
            continue
        for h, cell in zip(header[1:], cells[1:]):
            out += doc_cell_problems(rows, keys, h, cell)
    return out


def run_table_problems(source, notes, checked, header, body):
    """An "exact ALiBi, run" table: a run per row ("`NAME`: N steps, K seeds"),
    its phrases against configs/NAME.toml, its values against NAME's summary."""
    out = []
    for cells in body:
        m = RUN_ROW.fullmatch(cells[0])
        summary = source / "docs" / "results" / (m["name"] if m else "") / "lm.summary.csv"
        if not m or not summary.is_file():
            out.append(f"row '{cells[0]}' names no committed run (`NAME`: ...)")
            continue
        out += folder_problems(source, m["name"], notes, checked)
        config_path = source / "configs" / f"{m['name']}.toml"
        if config_path.is_file():
            config = tomllib.loads(config_path.read_text()).get("lm", {})
            out += config_phrase_problems(m["name"], config, cells[0])
        rows = summary_rows(summary)
        for h, cell in zip(header[1:], cells[1:]):
            out += doc_cell_problems(rows, [("exact", "", "train")], h, cell)
    return out


def doc_table_problems(source, notes, checked):
    """The results tables of every run's page (docs/results/NAME/README.md)."""
    pages = sorted(p.relative_to(source).as_posix() for p in (source / "docs" / "results").glob("*/README.md"))
    return [problem for page in pages for problem in page_table_problems(source, notes, checked, page)]


def page_table_problems(source, notes, checked, page):
    """The results tables of a page against the committed summaries they quote; a
    quoted folder not yet in `checked` gets the claims table's checks too
    (folder_problems)."""
    text, out = (source / page).read_text(), []
    sections = list(DOC_SECTION.finditer(text))
    for section, end in zip(sections, [s.start() for s in sections[1:]] + [len(text)]):
        name = section.group(1)
        summary = source / "docs" / "results" / name / "lm.summary.csv"
        if not summary.is_file():
            continue
        out += folder_problems(source, name, notes, checked)
        for header, body in tables(text[section.end():end].split("\n## ", 1)[0]):
            if header[0] == "model (from scratch)":
                found = model_table_problems(summary_rows(summary), header, body)
            elif header[0] == "exact ALiBi, run":
                found = run_table_problems(source, notes, checked, header, body)
            else:
                continue
            out += [f"{page}, {name}: {p}" for p in found]
    return out


def config_problems(source, name, meta=None):
    """The committed tables ran with configs/NAME.toml's [lm] options as they
    stand (the sidecar's config is the options as resolved for the run)."""
    config = source / "configs" / f"{name}.toml"
    meta = meta or source / "docs" / "results" / name / "lm.csv.meta.json"
    missing = [str(p) for p in (config, meta) if not p.is_file()]
    if missing:
        return [f"{' and '.join(missing)} missing"]
    wanted = tomllib.loads(config.read_text()).get("lm", {})
    ran = tomllib.loads(json.loads(meta.read_text())["config"])
    return [f"configs/{name}.toml sets {key} = {value!r}, its committed tables ran with "
            f"{ran.get(key)!r}: run it again" for key, value in wanted.items()
            if ran.get(key) != value]


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def legacy_commits(folder):
    readme = folder / "README.md"
    text = readme.read_text() if readme.is_file() else ""
    return {c.rstrip(".,;") for c in re.findall(r"Legacy table:\s+git_commit\s+(\S+)", text)}


def sidecar_problems(folder, notes, name="lm.csv"):
    """The sidecar's commit is clean (or a declared legacy one) and lm.csv is the
    table it records (hash and row count)."""
    meta_path, table = folder / f"{name}.meta.json", folder / name
    if not meta_path.is_file():
        return [f"{meta_path} missing"]
    meta, out = json.loads(meta_path.read_text()), []
    commit = meta.get("git_commit")
    if commit is None:
        out.append("the sidecar records no git_commit")
    elif commit.endswith("-dirty") or commit == "unknown":
        if commit in legacy_commits(folder):
            notes.append(f"{folder.name}: legacy table, made from a dirty tree ({commit}), "
                         "declared in its README.md")
        else:
            out.append(f"the sidecar's git_commit is {commit}: made from a tree with uncommitted "
                       "changes (run it again from a clean commit, or declare it 'Legacy table: "
                       f"git_commit {commit}' in {folder.name}/README.md)")
    if "csv_fnv1a64" in meta:
        if not table.is_file():
            return out + [f"{table} missing (its sidecar records its hash)"]
        data = table.read_bytes()
        if fnv1a64(data) != meta["csv_fnv1a64"]:
            out.append(f"{name} hashes to {fnv1a64(data)}, its sidecar records "
                       f"{meta['csv_fnv1a64']}: the table was edited after the run")
        rows = data.count(b"\n") - 1
        if "rows" in meta and rows != meta["rows"]:
            out.append(f"{name} holds {rows} rows, its sidecar records {meta['rows']}")
    return out


SHARD = re.compile(r"lm\.(\d+)\.csv")


def shard_problems(source, name):
    """docs/results/NAME/shards/lm.K.csv, the shards of a run (in progress or merged):
    each is its sidecar's table from a clean commit, shard K of configs/NAME.toml
    as it stands, and all of them of one build, so `poslsh merge` will take them."""
    folder, out, commits, counts = source / "docs" / "results" / name / "shards", [], set(), set()
    for table in sorted(p for p in folder.glob("lm.*.csv") if SHARD.fullmatch(p.name)):
        meta_path = folder / f"{table.name}.meta.json"
        found = sidecar_problems(folder, [], table.name)
        if meta_path.is_file():
            meta = json.loads(meta_path.read_text())
            k = SHARD.fullmatch(table.name).group(1)
            if not meta.get("shard", "").startswith(f"{k}/"):
                found.append(f"its sidecar records shard {meta.get('shard')!r}, not {k}/N")
            commits.add(meta.get("git_commit"))
            counts.add(meta.get("shard", "").partition("/")[2])
            found += config_problems(source, name, meta_path)
        out += [f"{name}/shards/{table.name}: {p}" for p in found]
    if len(commits) > 1:
        out.append(f"{name}/shards: the shards come from commits {sorted(map(str, commits))}: "
                   "merge takes shards of one build")
    if len(counts) > 1:
        out.append(f"{name}/shards: the shards are slices of {sorted(counts)} shards: merge takes 1..N of one N")
    return out + [f"{name}/README.md: {p}" for p in shard_cost_problems(folder)] + \
        [f"{name}/lm.csv: {p}" for p in merged_problems(folder)]


def shard_number(table):
    return int(SHARD.fullmatch(table.name).group(1))


def merged_problems(folder):
    """Once merged, the run's lm.csv is its committed shards' bytes: the shards its
    sidecar's merged_from names are the ones in shards/, and the table is their
    concatenation in shard order with the header once (what `poslsh merge` writes),
    so the claims quote the shards' own rows."""
    meta_path, table = folder.parent / "lm.csv.meta.json", folder.parent / "lm.csv"
    if not meta_path.is_file() or not table.is_file():
        return []
    named = json.loads(meta_path.read_text()).get("merged_from")
    if named is None:
        return []
    shards = sorted((p for p in folder.glob("lm.*.csv") if SHARD.fullmatch(p.name)), key=shard_number)
    if not shards or [pathlib.PurePath(n).name for n in named] != [p.name for p in shards]:
        return [f"its sidecar merges {named}, the committed shards are {[p.name for p in shards]}"]
    parts = [p.read_bytes().partition(b"\n") for p in shards]
    if parts[0][0] + b"\n" + b"".join(body for _, _, body in parts) != table.read_bytes():
        return ["it is not its shards' rows in shard order (poslsh merge of the committed shards)"]
    return []


# A row of the README's shard cost table:
# | K/N | finished (UTC) | W s | cell-seconds | exact ALiBi s/step | others' lo–hi | CPU |
COST_ROW = re.compile(r"^\| (\d+)/\d+ \| ([^|\n]*?) \| (\d+) s \| (\d+) \| ([^|\n]*?) \| ([^|\n]*?) \| "
                      r"([^|\n]*?) \|", re.M)


def shard_cost(meta, table):
    """A shard's cost row as its files give it: finished (the sidecar's UTC minute), wall
    seconds (the sidecar's), cell-seconds (each cell's `seconds`, which all its rows repeat,
    summed), exact ALiBi's training s/step, the other trainings' range and the CPU (the
    sidecar's `machine` after its last "; ": shards of one run may run on different VMs)."""
    seconds, steps = {}, {}
    with table.open(newline="") as f:
        for r in csv.DictReader(f):
            cell = tuple(r.get(c) for c in ("variant", "train_s", "seed", "phase"))
            if r.get("seconds"):
                seconds[cell] = float(r["seconds"])
            if r.get("step_cpu_seconds") and r.get("phase") == "train":
                steps[cell] = float(r["step_cpu_seconds"])
    exact = [v for c, v in steps.items() if c[0] == "exact"]
    others = [v for c, v in steps.items() if c[0] != "exact"]
    return (meta.get("finished_utc", "")[:16].replace("T", " "),
            str(round(meta.get("duration_seconds_this_run", -1))), str(round(sum(seconds.values()))),
            f"{max(exact):.2f}" if exact else "",
            f"{min(others):.2f}–{max(others):.2f}" if others else "",
            meta.get("machine", "").rpartition("; ")[2])


def shard_cost_problems(folder):
    """The run's README quotes each committed shard's cost row as its files give it
    (shard_cost), and has no row for a shard not here."""
    readme = folder.parent / "README.md"
    listed = {int(row[0]): row[1:] for row in COST_ROW.findall(readme.read_text())} \
        if readme.is_file() else {}
    out = []
    for meta_path in sorted(folder.glob("lm.*.csv.meta.json")):
        table = meta_path.with_name(meta_path.name.removesuffix(".meta.json"))
        if not SHARD.fullmatch(table.name) or not table.is_file():
            continue
        k = shard_number(table)
        measured = shard_cost(json.loads(meta_path.read_text()), table)
        quoted = listed.pop(k, None)
        if quoted != measured:
            out.append(f"shard {k}'s cost row quotes {' | '.join(quoted) if quoted else 'nothing'}: "
                       f"its files give {' | '.join(measured)}")
    return out + [f"a cost row for shard {k}, which is not committed" for k in sorted(listed)]


def all_shard_problems(source):
    results = source / "docs" / "results"
    return [p for d in sorted(results.glob("*/shards")) for p in shard_problems(source, d.parent.name)]


def betainc(a, b, x):
    """The regularised incomplete beta function I_x(a, b) (Numerical Recipes' betacf)."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - betainc(b, a, 1 - x)
    tiny = 1e-300
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x)) / a
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= c * d
        if abs(c * d - 1) < 1e-16:
            break
    return front * h


@functools.lru_cache(maxsize=None)
def t_quantile(p, df):
    """The Student-t quantile t_p (p > 1/2) with df degrees of freedom, by bisection
    on the distribution function 1 - I_{df/(df + t^2)}(df/2, 1/2) / 2."""
    lo, hi = 0.0, 1e4
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - betainc(df / 2, 0.5, df / (df + mid * mid)) / 2 < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def t_interval(x):
    """(mean, low, high) as stats::t_interval (95%, two-sided); no interval below two values."""
    k = len(x)
    mean = sum(x) / k
    if k < 2:
        return mean, None, None
    ss = sum((v - mean) * (v - mean) for v in x)
    half = t_quantile(0.975, k - 1) * math.sqrt(ss / (k - 1) / k)
    return mean, mean - half, mean + half


def margin_verdict(low, high, margin):
    if not low <= high:
        return "undecided"
    if -margin <= low and high <= margin:
        return "comparable"
    return "worse" if low > margin else "better" if high < -margin else "undecided"


KEY = ["variant", "train_s", "phase", "eval", "eval_s", "step", "pos_lo", "pos_hi", "head", "context",
       "metric"]


def table_groups(rows):
    """lm_checks.cpp's groups: key -> {seed: [values]} in order of first appearance
    (output errors pooled over heads)."""
    out = {}
    for r in rows:
        key = tuple("" if c == "head" and r["metric"] == "output_error" else r[c] for c in KEY)
        out.setdefault(key, {}).setdefault(r["seed"], []).append(float(r["value"]))
    return out


def seed_means(group):
    return {seed: sum(v) / len(v) for seed, v in sorted(group.items())}


def paired(ours, other):
    """Differences paired by seed; a seedless side (a baseline) pairs with every seed."""
    if list(other) == [""]:
        d = [v - other[""] for v in ours.values()]
    elif list(ours) == [""]:
        d = [ours[""] - v for v in other.values()]
    else:
        d = []
    d += [v - other[seed] for seed, v in ours.items() if seed in other and seed != ""]
    return t_interval(d) if d else None


def reference_key(groups, key, reference):
    k = dict(zip(KEY, key))
    if "bpb" not in k["metric"]:
        return None
    eval_ = "swapin" if k["eval"] == "swapin" else "self"
    phase = "train" if k["phase"] == "baseline" else k["phase"]
    for other in groups:
        o = dict(zip(KEY, other))
        if (o["variant"], o["eval"], o["phase"]) == (reference, eval_, phase) and all(
                o[c] == k[c] for c in ("step", "pos_lo", "pos_hi", "context", "metric")):
            return other
    return None


def own_n_key(groups, key, n):
    k = dict(zip(KEY, key))
    if "bpb" not in k["metric"] or k["pos_lo"] == "" or float(k["pos_lo"]) < float(n):
        return None
    want = dict(k, pos_lo="", pos_hi="", context=n)
    return next((o for o in reversed(list(groups)) if dict(zip(KEY, o)) == want), None)


def net_of_exact(groups, key, n):
    """vs_n: (model beyond n - model at n) - (exact's same), paired by seed."""
    own = own_n_key(groups, key, n)
    exact = reference_key(groups, key, "exact")
    exact_n = reference_key(groups, own, "exact") if own else None
    if not (own and exact and exact_n) or exact == key:
        return None
    m, mn, e, en = (seed_means(groups[k]) for k in (key, own, exact, exact_n))
    d = [(v - mn[s]) - (e[s] - en[s]) for s, v in m.items() if s in mn and s in e and s in en]
    return t_interval(d) if d else None


def differences(groups, key, n):
    """Each difference column's (mean, low, high) or None, as lm_summary_csv writes them."""
    means = lambda k: seed_means(groups[k])  # noqa: E731
    exact = reference_key(groups, key, "exact")
    out = {"vs_exact": paired(means(key), means(exact)) if exact and exact != key else None}
    lsh = key[0] == "lsh" and key[3] in ("self", "swapin")
    for column, reference in (("vs_fixed_block", "fixed-block"), ("vs_nobias", "nobias")):
        other = reference_key(groups, key, reference) if lsh else None
        out[column] = paired(means(key), means(other)) if other else None
    out["vs_n"] = net_of_exact(groups, key, n)
    return out


def close(text, value):
    if value is None or text == "":
        return value is None and text == ""
    return abs(float(text) - value) <= 1e-9 * max(1.0, abs(value))


def recomputed_row_problems(committed, key, groups, n, margin):
    out, label = [], ",".join(key)
    mean, low, high = t_interval(list(seed_means(groups[key]).values()))
    fields = {"seeds": None, "mean": mean, "seed_ci_low": low, "seed_ci_high": high}
    if committed["seeds"] != str(len(groups[key])):
        out.append(f"summary row {label}: seeds is {committed['seeds']}, lm.csv has {len(groups[key])}")
    for column, d in differences(groups, key, n).items():
        if column + "_mean" not in committed:
            continue  # a summary written before the column existed
        fields.update({f"{column}_mean": d and d[0], f"{column}_low": d and d[1], f"{column}_high": d and d[2]})
        verdict = "" if d is None else "undecided" if d[1] is None else margin_verdict(d[1], d[2], margin)
        if committed[column + "_verdict"] != verdict:
            out.append(f"summary row {label}: {column}_verdict is '{committed[column + '_verdict']}', "
                       f"lm.csv gives '{verdict}'")
    for column, value in fields.items():
        if value is not None or column != "seeds":
            if column != "seeds" and not close(committed[column], value):
                out.append(f"summary row {label}: {column} is '{committed[column]}', lm.csv gives {value!r}")
    return out


def summary_problems(folder):
    """lm.summary.csv against the summary recomputed here from lm.csv."""
    table, summary = folder / "lm.csv", folder / "lm.summary.csv"
    if not table.is_file():
        return []
    rows = summary_rows(table)
    groups = table_groups(rows)
    n = training_context(rows)
    margin = float(rows[0]["margin"]) if rows else math.nan
    committed = {tuple(r[c] for c in KEY): r for r in summary_rows(summary)}
    out = [f"summary row {','.join(k)} has no rows in lm.csv" for k in committed if k not in groups]
    out += [f"lm.csv's group {','.join(k)} has no summary row" for k in groups if k not in committed]
    for key in groups:
        if key in committed:
            out += recomputed_row_problems(committed[key], key, groups, n, margin)
    return out


BENCH_MARK = "`bench_lm.csv`, column `bytes_per_cpu_second`):"
BENCH_SINGLE = re.compile(r"(exact ALiBi|no bias|sinusoidal|fixed blocks) (\d+)")
BENCH_PAIR = re.compile(r"(positional LSH|window of LSH's cost) (\d+) \(s = (\d+)\) and (\d+) \(s = (\d+)\)")
BENCH_VARIANTS = {"exact ALiBi": "exact", "no bias": "nobias", "sinusoidal": "sinusoidal",
                  "fixed blocks": "fixed-block", "positional LSH": "lsh", "window of LSH's cost": "window"}


def bench_quote_problems(folder):
    """The run's README quotes its bench_lm.csv's bytes per CPU second, each
    rounded to the integer: the sentence after BENCH_MARK, "exact ALiBi N, ...,
    positional LSH N (s = K) and N (s = L), ..."; a number there no phrase
    covers fails."""
    readme, bench = folder / "README.md", folder / "bench_lm.csv"
    text = " ".join(readme.read_text().split()) if readme.is_file() else ""
    if BENCH_MARK not in text:
        return []
    if not bench.is_file():
        return [f"README.md quotes {bench.name}, which is not committed"]
    quoted = text.split(BENCH_MARK, 1)[1].split(". ", 1)[0]
    measured = {}
    for r in summary_rows(bench):
        measured.setdefault((r["variant"], r["s"]), []).append(r["bytes_per_cpu_second"])
    pairs = [(m[1], "", m[2]) for m in BENCH_SINGLE.finditer(quoted)]
    pairs += [(m[1], s, v) for m in BENCH_PAIR.finditer(quoted) for v, s in ((m[2], m[3]), (m[4], m[5]))]
    out = []
    for label, s, value in pairs:
        found = measured.get((BENCH_VARIANTS[label], s), [])
        if len(found) != 1:
            out.append(f"'{label}{f' (s = {s})' if s else ''}' names {len(found)} rows of {bench.name}, not one")
        elif round(float(found[0])) != int(value):
            out.append(f"'{label} {value}{f' (s = {s})' if s else ''}': {bench.name} has {found[0]}")
    rest = BENCH_SINGLE.sub("", BENCH_PAIR.sub("", quoted))
    return out + [f"'{n}' in README.md's bench sentence is not part of a quote" for n in re.findall(r"\d+", rest)]


def table_problems(folder, notes):
    return [f"{folder.name}: {p}" for p in sidecar_problems(folder, notes) + summary_problems(folder)
            + bench_quote_problems(folder)]


# The pages whose "## What the paper claims" section quotes the runs: the
# README's verdict table (one number per claim) and the whole table with
# every interval in docs/results.md (its links relative to docs/).
CLAIMS_PAGES = ("README.md", "docs/results.md")


def page_problems(source, page, text, notes, checked_tables):
    """The quotes of one page's claims section; the number of LM rows checked."""
    out, checked = [], 0
    for rows, column, title in ((r, c, t) for h, r in claims_tables(text)
                                for c, t in enumerate(h)):
        link = RESULTS_LINK.search(title)
        if not link:
            continue
        summary = source / "docs" / "results" / link.group(1) / "lm.summary.csv"
        if not summary.is_file():
            out.append(f"{page}: column '{title}': {summary} does not exist")
            continue
        table = summary_rows(summary)
        out += [f"{summary.parent.name}: {p}" for p in config_problems(source, summary.parent.name)]
        if summary.parent not in checked_tables:
            checked_tables.append(summary.parent)
            out += table_problems(summary.parent, notes)
        for cells in rows:
            claim = cells[0].split(":", 1)[0]
            if re.fullmatch(r"LM \d", claim):
                checked += 1
                out += [f"{page}: {summary.parent.name}: {p}"
                        for p in check_cell(table, claim, cells[column])]
    if checked == 0:
        out.append(f"{page}: no column of the claims table links into docs/results/NAME/")
    return out + [f"{page}: {p}" for p in paragraph_problems(source, text)], checked


def problems(source, notes=None):
    notes = [] if notes is None else notes
    out, checked_tables = [], []
    for page in CLAIMS_PAGES:
        path = source / page
        if page != "README.md" and not path.is_file():
            continue  # a scratch tree of the self-test has the README alone
        text = path.read_text()
        if "## What the paper claims" not in text:
            out.append(f"{page} has no section '## What the paper claims'")
            continue
        found, _ = page_problems(source, page, text, notes, checked_tables)
        out += found
    return out + doc_table_problems(source, notes, checked_tables) + all_shard_problems(source)


SELF_TEST_SUMMARY = """variant,train_s,phase,eval,eval_s,step,pos_lo,pos_hi,head,context,metric,\
vs_exact_mean,vs_exact_low,vs_exact_high,vs_exact_verdict,vs_fixed_block_mean,vs_fixed_block_low,\
vs_fixed_block_high,vs_fixed_block_verdict,vs_nobias_mean,vs_nobias_low,vs_nobias_high,vs_nobias_verdict,\
vs_n_mean,vs_n_low,vs_n_high,vs_n_verdict,mean
lsh,4,train,self,,,,,,64,val_bpb,0.0312,0.0101,0.0523,undecided,-0.01,-0.02,0.0,undecided,-0.4,-0.5,-0.3,better,,,,,2.53
lsh,4,finetune,self,,,,,,64,val_bpb,0.011,0.001,0.016,comparable,-0.05,-0.07,-0.03,better,,,,,,,,,2.51
lsh,4,train,self,,,64,128,,128,val_bpb,0.002,-0.001,0.005,comparable,,,,,,,,,0.001,-0.002,0.004,comparable,2.6
lsh,4,train,self,,,,,,64,test_bpb,0.021,0.015,0.027,worse,,,,,,,,,,,,,2.4
sinusoidal,,train,self,,,64,128,,128,val_bpb,0.5,0.4,0.6,worse,,,,,,,,,0.3,0.25,0.35,worse,3.1
ngram-2,,baseline,self,,,,,,64,val_bpb,0.7,0.65,0.75,worse,,,,,,,,,,,,,3.2
exact,,train,self,,,,,,64,val_bpb,,,,,,,,,,,,,,,,,2.4987
exact,,train,self,,,,,,64,val_bpb_beyond8,,,,,,,,,,,,,,,,,0.1234
"""

SELF_TEST_CONFIG = "[lm]\nsteps = 150\nsigmas = [2, 4]\ncontext = 64\nmargin = 0.02\n"
SELF_TEST_META = json.dumps({"config": "steps = 150\nsigmas = [2, 4]\ncontext = 64\nmargin = 0.02\n",
                             "git_commit": "0123456789ab"})

SELF_TEST_README = """# x
## What the paper claims, and what poslsh finds

{0}

| claim | verdict | long contexts ([tables](docs/results/t/report.md)) |
|---|---|---|
| theorem | holds 1.5 | |
| LM 1: a | b | {1} |
| LM 2: a | b | s = 4: −0.400 [−0.500, −0.300] better |
| LM 3: a | b | s = 4 from exact ALiBi: +0.011 [+0.001, +0.016] comparable; s = 4 from exact ALiBi, minus fixed blocks: −0.05 [−0.07, −0.03] better |
| LM 4: a | b | s = 4, positions [64, 128) at 128: +0.002 [−0.001, +0.005] comparable; sinusoidal control, minus its loss at n, positions [64, 128) at 128: +0.30 [+0.25, +0.35] worse |
| LM 5: a | b | order-2 n-gram: +0.70 [+0.65, +0.75] worse; s = 4, on the test split: +0.021 [+0.015, +0.027] worse |

## Next
"""


SELF_TEST_PARAGRAPH = """Differences at a ±0.02 margin. Runs ([configs/t.toml](configs/t.toml)):
n = 64, σ = 2 to 4, 150 steps; exact ALiBi ends at 2.50 bits per byte and gains 0.123
from the bytes beyond the last 8."""


def paragraph_plants():
    """(text replaced in the paragraph) -> the problems expected."""
    return {
        ("ends at 2.50", "ends at 2.51"): ["'exact ALiBi ends at 2.51': the table's mean is 2.4987"],
        ("gains 0.123", "gains 0.124"): ["the table's mean is 0.1234"],
        ("last 8", "last 64"): ["no exact ALiBi row val_bpb_beyond64"],
        ("150 steps", "300 steps"): ["'300 steps': configs/t.toml has 150"],
        ("σ = 2 to 4", "σ = 2 to 8"): ["'σ = 2 to 8': configs/t.toml has 4"],
        ("n = 64", "n = 128"): ["'n = 128': configs/t.toml has 64"],
        ("±0.02 margin", "±0.05 margin"): ["the quoted runs' margins are [0.02]"],
        ("per byte", "per byte (1.5 of it"): ["'1.5' in the paragraph above the claims table"],
        ("([configs/t.toml](configs/t.toml))", ""): ["links to no configs/NAME.toml"],
    }


SELF_TEST_DOC = """# x

## Measured: a test run (`configs/t.toml`)

| model (from scratch) | validation bpb at n | minus exact ALiBi (paired) | verdict at ±0.02 | from beyond 8 bytes |
|---|---|---|---|---|
| exact ALiBi (the control) | 2.50 | | | 0.123 |
| positional LSH, s = 4 | 2.53 | +0.031 [+0.010, +0.052] | undecided | |
| byte n-gram, order 2 | 3.2 | +0.70 [+0.65, +0.75] | worse | |

| exact ALiBi, run | validation bpb at n | from beyond 8 bytes |
|---|---:|---:|
| `t`: 150 steps | 2.499 | 0.12 |
"""


def doc_plants():
    """(text replaced in the docs page's results table) -> the problems expected."""
    return {
        ("| 2.53 |", "| 2.54 |"): ["'2.54' under 'validation bpb at n' for ('lsh', '4', 'train'): mean is 2.53"],
        ("+0.052]", "+0.053]"): ["high is 0.0523"],
        ("| 0.123 |", "| 0.124 |"): ["'0.124' under 'from beyond 8 bytes' for ('exact', '', 'train'): mean is 0.1234"],
        ("| undecided |", "| comparable |"): ["the summary says 'undecided'"],
        ("s = 4 |", "s = 5 |"): ["the summary has no row ('lsh', '5', 'train')"] * 3,
        ("order 2 |", "order 2 / 3 |"): ["1 values for 2 models"] * 3,
        ("| positional LSH,", "| LSH,"): ["row 'LSH, s = 4' names no model"],
        ("| 2.499 |", "| 2.498 |"): ["'2.498' under 'validation bpb at n' for ('exact', '', 'train'): mean is 2.4987"],
        ("`t`: 150 steps", "`t`: 300 steps"): ["'300 steps': configs/t.toml has 150"],
        ("`t`: 150", "`u`: 150"): ["row '`u`: 150 steps' names no committed run"],
    }


def edited_line(text, column, match, change):
    """text with `column` of the first data line containing every string of `match` changed."""
    lines = text.split("\n")
    index = lines[0].split(",").index(column)
    for i, line in enumerate(lines[1:], 1):
        if all(m in line for m in match):
            fields = line.split(",")
            fields[index] = change(fields[index])
            lines[i] = ",".join(fields)
            return "\n".join(lines)
    raise AssertionError(f"self-test: no line with {match}")


def table_plants():
    """(what is edited, edit of (lm.csv, summary, README), problems expected) on a copy of
    the committed lm-long tables."""
    bump = lambda v: repr(float(v) + 0.01)  # noqa: E731
    return [
        ("nothing", lambda t, s, r: (t, s, r), []),
        ("one value of lm.csv",
         lambda t, s, r: (edited_line(t, "value", [",lsh,", ",val_bpb,"], bump), s, r),
         ["lm.csv hashes to", "summary row "]),
        ("one interval bound of the summary",
         lambda t, s, r: (t, edited_line(s, "vs_exact_low", [",lsh,", ",val_bpb,"], bump), r),
         ["vs_exact_low is"]),
        ("the legacy declaration",
         lambda t, s, r: (t, s, r.replace("Legacy table:", "Old table:")),
         ["git_commit is 981e2cca8e45-dirty"]),
    ]


def scratch_tree(root, config, meta, doc, readme=None):
    """A source tree holding configs/t.toml, docs/results/t/ (sidecar, summary and
    the run's page, README.md) and, if given, the top README.md."""
    folder = root / "docs" / "results" / "t"
    folder.mkdir(parents=True)
    (root / "configs").mkdir()
    (root / "configs" / "t.toml").write_text(config)
    (folder / "lm.csv.meta.json").write_text(meta)
    (folder / "lm.summary.csv").write_text(SELF_TEST_SUMMARY)
    (folder / "README.md").write_text(doc)
    if readme is not None:
        (root / "README.md").write_text(readme)


def reported(found, expected):
    """Every expected problem is reported, and nothing else."""
    return len(found) == len(expected) and all(any(e in f for f in found) for e in expected)


def doc_folder_self_test():
    """A folder only the docs page quotes gets the config and sidecar checks too."""
    failures = 0
    for what, config, meta, expected in (
            ("nothing", SELF_TEST_CONFIG, SELF_TEST_META, []),
            ("the config", SELF_TEST_CONFIG.replace("150", "300"), SELF_TEST_META,
             ["sets steps = 300", "docs/results/t/README.md, t: '150 steps': configs/t.toml has 300"]),
            ("the sidecar's commit", SELF_TEST_CONFIG, SELF_TEST_META.replace("89ab", "89ab-dirty"),
             ["git_commit is 0123456789ab-dirty"])):
        with tempfile.TemporaryDirectory() as tmp:
            scratch_tree(pathlib.Path(tmp), config, meta, SELF_TEST_DOC)
            found = doc_table_problems(pathlib.Path(tmp), [], [])
        if not reported(found, expected):
            failures += 1
            print(f"self-test: a folder only the docs page quotes, {what} edited: expected "
                  f"{expected or 'no problem'}, got {found}")
    return failures


def table_self_test():
    """The table checks on a scratch copy of docs/results/lm-long, each plant reported."""
    failures = 0
    for x, want in ((t_quantile(0.975, 1), math.tan(0.475 * math.pi)),
                    (t_quantile(0.975, 2), 0.95 * math.sqrt(2 / (1 - 0.95 ** 2)))):
        if abs(x - want) > 1e-12 * want:
            failures += 1
            print(f"self-test: Student-t quantile {x!r}, closed form {want!r}")
    committed = pathlib.Path(__file__).resolve().parents[1] / "docs" / "results" / "lm-long"
    for what, edit, expected in table_plants():
        with tempfile.TemporaryDirectory() as tmp:
            folder = pathlib.Path(tmp) / "lm-long"
            shutil.copytree(committed, folder, ignore=shutil.ignore_patterns("*.png", "*.pdf", "*.svg"))
            files = [folder / "lm.csv", folder / "lm.summary.csv", folder / "README.md"]
            for f, text in zip(files, edit(*(f.read_text() for f in files))):
                f.write_text(text)
            found = table_problems(folder, [])
        ok = all(any(e in f for f in found) for e in expected) and (found == []) == (expected == [])
        if not ok:
            failures += 1
            print(f"self-test: lm-long with {what} edited: expected {expected or 'no problem'}, "
                  f"got {found[:4]}")
    return failures


SHARD_COSTS = ("| shard | finished | wall | cell-seconds | exact s/step | others | CPU |\n|---|---|---|---|---|---|---|\n"
               "| 1/2 | 2026-12-06 23:47 | 100 s | 13 | 0.91 | 0.52–0.66 | Xeon |\n"
               "| 2/2 | 2026-12-06 23:47 | 100 s | 7 | 0.70 | 0.45–0.57 | Xeon |\n")
# Shard tables whose cells give SHARD_COSTS's cell-seconds (13.2, 6.9) and s/step.
SHARD_TABLES = {k: "variant,seed,phase,seconds,step_cpu_seconds\n" + "".join(
    f"{v},{k - 1},train,{sec},{step}\n" for v, sec, step in cells) for k, cells in (
    (1, (("exact", 8.2, 0.91), ("window", 3.0, 0.52), ("lsh", 2.0, 0.66))),
    (2, (("exact", 4.9, 0.70), ("window", 1.0, 0.45), ("lsh", 1.0, 0.57))))}


def shard_tree(root, config, shards, costs=SHARD_COSTS, merged=None):
    """configs/t.toml, docs/results/t/README.md (costs) and docs/results/t/shards/lm.K.csv
    for each (K, table, sidecar edit); with merged (its table, the shard names its
    sidecar merges) also docs/results/t/lm.csv and its sidecar."""
    folder = root / "docs" / "results" / "t" / "shards"
    folder.mkdir(parents=True)
    (root / "configs").mkdir()
    (root / "configs" / "t.toml").write_text(config)
    (folder.parent / "README.md").write_text(costs)
    for k, table, edit in shards:
        meta = {"git_commit": "0123456789ab", "shard": f"{k}/2", "rows": 3, "duration_seconds_this_run": 99.6,
                "finished_utc": "2026-12-06T23:47:10Z", "machine": "vm; 2 hardware threads; Xeon",
                "csv_fnv1a64": fnv1a64(table.encode()), "config": json.loads(SELF_TEST_META)["config"]}
        (folder / f"lm.{k}.csv").write_text(table)
        (folder / f"lm.{k}.csv.meta.json").write_text(json.dumps({**meta, **edit}))
    if merged:
        table, names = merged
        (folder.parent / "lm.csv").write_text(table)
        (folder.parent / "lm.csv.meta.json").write_text(
            json.dumps({"merged_from": [f"shards/{n}" for n in names], "csv_fnv1a64": fnv1a64(table.encode())}))


def shard_self_test():
    """The checks of a run's committed shards, each plant reported: the shards' files
    (with SHARD_COSTS) and then the README's cost rows (with both shards as written)."""
    failures, one, two = 0, SHARD_TABLES[1], SHARD_TABLES[2]
    both, cost = [(1, one, {}), (2, two, {})], SHARD_COSTS.replace
    file_plants = (
        ("nothing", SELF_TEST_CONFIG, both, []),
        ("a table", SELF_TEST_CONFIG, [(1, one, {}), (2, two, {"csv_fnv1a64": fnv1a64(one.encode())})],
         ["lm.2.csv hashes to"]),
        ("a shard number", SELF_TEST_CONFIG, [(1, one, {"shard": "2/2"}), (2, two, {})], ["records shard '2/2'"]),
        ("a commit", SELF_TEST_CONFIG, [(1, one, {}), (2, two, {"git_commit": "fedcba987654"})],
         ["the shards come from commits"]),
        ("a shard count", SELF_TEST_CONFIG, [(1, one, {}), (2, two, {"shard": "2/3"})], ["slices of ['2', '3'] shards"]),
        ("a dirty tree", SELF_TEST_CONFIG, [(1, one, {"git_commit": "0123456789ab-dirty"}), (2, two, {})],
         ["git_commit is 0123456789ab-dirty", "the shards come from commits"]),
        ("the config", SELF_TEST_CONFIG.replace("150", "300"), both,
         ["lm.1.csv: configs/t.toml sets steps = 300", "lm.2.csv: configs/t.toml sets steps = 300"]),
        ("a shard's CPU", SELF_TEST_CONFIG, [(1, one, {}), (2, two, {"machine": "vm; 2 hardware threads; EPYC"})],
         ["0.45–0.57 | Xeon: its files give 2026-12-06 23:47 | 100 | 7 | 0.70 | 0.45–0.57 | EPYC"]),
        ("a cost row without its shard", SELF_TEST_CONFIG, [(1, one, {})],
         ["a cost row for shard 2, which is not committed"]))
    cost_plants = (
        ("a cost row's finish", cost("2/2 | 2026-12-06 23:47", "2/2 | 2026-12-06 23:48"),
         ["shard 2's cost row quotes 2026-12-06 23:48 | 100 | 7"]),
        ("a cost row's wall", cost("| 2/2 | 2026-12-06 23:47 | 100 s", "| 2/2 | 2026-12-06 23:47 | 101 s"),
         ["shard 2's cost row quotes 2026-12-06 23:47 | 101 | 7"]),
        ("a cost row's cell-seconds", cost("100 s | 13 |", "100 s | 12 |"), ["shard 1's cost row quotes 2026-12-06 23:47 | 100 | 12"]),
        ("a cost row's exact s/step", cost("| 0.91 |", "| 0.90 |"), ["shard 1's cost row quotes 2026-12-06 23:47 | 100 | 13 | 0.90"]),
        ("a cost row's other s/step", cost("0.52–0.66", "0.52–0.67"), ["| 0.91 | 0.52–0.67 | Xeon: its files give"]),
        ("a cost row's CPU", cost("0.45–0.57 | Xeon", "0.45–0.57 | EPYC"), ["| 0.45–0.57 | EPYC: its files give"]),
        ("a missing cost row", cost("| 2/2 | 2026-12-06 23:47 | 100 s | 7 | 0.70 | 0.45–0.57 | Xeon |\n", ""),
         ["shard 2's cost row quotes nothing"]))
    # The merged table: the shards' rows, the header once (as poslsh merge writes it).
    merged, names = one + two.partition("\n")[2], ["lm.1.csv", "lm.2.csv"]
    merge_plants = (
        ("nothing (merged)", (merged, names), []),
        ("a merged table without shard 2's rows", (one, names), ["lm.csv: it is not its shards' rows"]),
        ("a merged table with its shards swapped", (two + one.partition("\n")[2], names),
         ["lm.csv: it is not its shards' rows"]),
        ("a merged table's shard list", (merged, names[:1]), ["lm.csv: its sidecar merges ['shards/lm.1.csv']"]))
    plants = [(w, c, s, e, SHARD_COSTS, None) for w, c, s, e in file_plants] + \
        [(w, SELF_TEST_CONFIG, both, e, costs, None) for w, costs, e in cost_plants] + \
        [(w, SELF_TEST_CONFIG, both, e, SHARD_COSTS, m) for w, m, e in merge_plants]
    for what, config, shards, expected, costs, merged_table in plants:
        with tempfile.TemporaryDirectory() as tmp:
            shard_tree(pathlib.Path(tmp), config, shards, costs, merged_table)
            found = all_shard_problems(pathlib.Path(tmp))
        if not reported(found, expected):
            failures += 1
            print(f"self-test: shards with {what} edited: expected {expected or 'no problem'}, got {found}")
    return failures


SELF_TEST_BENCH = "n,variant,s,bytes_per_cpu_second\n256,exact,,3564.45\n256,lsh,10,7117.2\n256,lsh,20,3786.6\n"
SELF_TEST_BENCH_README = ("Bytes per CPU second (its output:\n`bench_lm.csv`, column `bytes_per_cpu_second`): "
                          "exact ALiBi 3564,\npositional LSH 7117 (s = 10) and 3787 (s = 20). At n = 256 ...\n")


def bench_self_test():
    """The bench sentence's checks, each plant reported; the sentence as written passes."""
    failures, say = 0, SELF_TEST_BENCH_README.replace
    plants = (("nothing", SELF_TEST_BENCH_README, []),
              ("a single value", say("ALiBi 3564", "ALiBi 3565"), ["'exact ALiBi 3565': bench_lm.csv has 3564.45"]),
              ("a pair's second value", say("3787 (s = 20)", "3786 (s = 20)"),
               ["'positional LSH 3786 (s = 20)': bench_lm.csv has 3786.6"]),
              ("a pair's s", say("(s = 20)", "(s = 4)"), ["'positional LSH (s = 4)' names 0 rows"]),
              ("a bare number", say("3564,", "3564, 12 more,"), ["'12' in README.md's bench sentence"]))
    for what, readme, expected in plants:
        with tempfile.TemporaryDirectory() as tmp:
            folder = pathlib.Path(tmp)
            (folder / "README.md").write_text(readme)
            (folder / "bench_lm.csv").write_text(SELF_TEST_BENCH)
            found = bench_quote_problems(folder)
        if not reported(found, expected):
            failures += 1
            print(f"self-test: bench sentence with {what} edited: expected {expected or 'no problem'}, got {found}")
    return failures


def self_test():
    plants = {
        "s = 4: +0.031 [+0.010, +0.052] undecided": [],
        "s = 4: +0.031 [+0.010, +0.053] undecided": ["high is 0.0523"],
        "s = 4: +0.031 [+0.010, +0.052] comparable": ["verdict is 'undecided'"],
        "s = 5: +0.031 [+0.010, +0.052] undecided": ["names 0 rows"],
        "s = 4: +0.031 [+0.010, +0.052] undecided, about 0.03 of the loss": ["'0.03' in row LM 1"],
        "s = 4, on the test split: +0.031 [+0.010, +0.052] undecided":
            ["mean is 0.021", "low is 0.015", "high is 0.027", "verdict is 'worse'"],
        "sinusoidal control: +0.5 [+0.4, +0.6] worse": ["names 0 rows"],
        "order-2 n-gram: +0.7 [+0.65, +0.75] better": ["verdict is 'worse'"],
        "s = 4, minus its loss at n, positions [64, 128) at 128: +0.001 [−0.002, +0.004] comparable": [],
        "s = 4, minus its loss at n, positions [64, 128) at 128: +0.002 [−0.002, +0.004] comparable":
            ["mean is 0.001"],
    }
    true_cell = next(iter(plants))
    cases = [(cell, SELF_TEST_PARAGRAPH, SELF_TEST_CONFIG, SELF_TEST_DOC, expected)
             for cell, expected in plants.items()]
    cases.append((true_cell, SELF_TEST_PARAGRAPH, SELF_TEST_CONFIG.replace("150", "300"), SELF_TEST_DOC,
                  ["sets steps = 300", "t: '150 steps': configs/t.toml has 300",
                   "docs/results/t/README.md, t: '150 steps': configs/t.toml has 300"]))
    cases += [(true_cell, SELF_TEST_PARAGRAPH.replace(a, b), SELF_TEST_CONFIG, SELF_TEST_DOC, expected)
              for (a, b), expected in paragraph_plants().items()]
    cases += [(true_cell, SELF_TEST_PARAGRAPH, SELF_TEST_CONFIG, SELF_TEST_DOC.replace(a, b), expected)
              for (a, b), expected in doc_plants().items()]
    failures = 0
    for cell, paragraph, config, doc, expected in cases:
        with tempfile.TemporaryDirectory() as tmp:
            scratch_tree(pathlib.Path(tmp), config, SELF_TEST_META, doc,
                         SELF_TEST_README.replace("{1}", cell).replace("{0}", paragraph))
            found = problems(pathlib.Path(tmp))
        if not reported(found, expected):
            failures += 1
            print(f"self-test: README cell '{cell}', paragraph '{paragraph}', config {config!r}, "
                  f"docs page {doc!r}: expected "
                  f"{expected or 'no problem'}, got {found}")
    failures += table_self_test() + doc_folder_self_test() + shard_self_test() + bench_self_test()
    failures += unification_self_test() + frontier_page_self_test()
    print("self-test:", "FAIL" if failures else "every planted mismatch was reported")
    return 1 if failures else 0


# The README's row on kernels beyond ALiBi quotes the frontier's decisions
# (docs/results/kernels/, configs/kernels.toml) as the committed check lines
# count them: each (kernel, sigma, n, s) is decided for the window, for LSH,
# or undecided, as `poslsh check` printed it in checks.csv.
UNIFICATION_ROW = "| kernels beyond ALiBi"
UNIFICATION_QUOTE = re.compile(
    r"window more accurate in (\d+) of (\d+) \(kernel, σ, n, s\), LSH in (\d+), undecided in (\d+)")
FRONTIER_DETAIL = re.compile(r"window wins at s = ([^;]*); LSH wins at s = ([^;]*); undecided at s = ([^(]*) \(")


def frontier_decisions(path):
    """(window, LSH, undecided) counts of (kernel, sigma, n, s) in a reproduction's checks.csv."""
    counts = [0, 0, 0]
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            m = FRONTIER_DETAIL.search(row["detail"]) if row["table"] == "frontier" else None
            for k in range(3 if m else 0):
                values = m.group(k + 1).strip()
                counts[k] += 0 if values == "none" else len(values.split(","))
    return tuple(counts)


def unification_problems(source):
    readme = (source / "README.md").read_text()
    rows = [line for line in readme.splitlines() if line.startswith(UNIFICATION_ROW)]
    if not rows:
        return [f"README.md has no claims row '{UNIFICATION_ROW} ...' (the paper's unification claim)"]
    m = UNIFICATION_QUOTE.search(rows[0])
    if not m:
        return ["README.md's kernels row quotes no 'window more accurate in W of M (kernel, σ, n, s), "
                "LSH in L, undecided in U'"]
    checks = source / "docs" / "results" / "kernels" / "checks.csv"
    if not checks.is_file():
        return [f"{checks.relative_to(source)} is missing: README.md's kernels row quotes it"]
    window, lsh, undecided = frontier_decisions(checks)
    quoted = tuple(int(x) for x in m.groups())
    actual = (window, window + lsh + undecided, lsh, undecided)
    if quoted != actual:
        return [f"README.md's kernels row quotes window {quoted[0]} of {quoted[1]}, LSH {quoted[2]}, "
                f"undecided {quoted[3]}; docs/results/kernels/checks.csv has {actual[0]} of {actual[1]}, "
                f"{actual[2]}, {actual[3]}"]
    return []


# The frontier run's page (docs/results/kernels/README.md) quotes, per kernel
# and sigma, LSH's and the window's mean relative error at the table's
# largest n and s ("0.064 vs 0 (1058 keys)"): each to the significant digits
# quoted, against frontier.csv.
FRONTIER_CELL = re.compile(r"^([0-9.e+-]+) vs ([0-9.e+-]+)(?: \((\d+) keys\))?$")


def kernel_spec(label):
    """'power law, α = 0.5' -> 'power-law:0.5'; 'laplace (ALiBi)' -> 'laplace'."""
    m = re.match(r"(power law|stretched exponential), [αβ] = ([0-9.]+)$", label)
    return f"{m.group(1).replace(' ', '-')}:{m.group(2)}" if m else label.split(" (")[0]


def same_significant(quoted, value):
    if float(quoted) == 0:
        return value == 0
    digits = len(re.sub(r"e.*$", "", quoted).replace(".", "").lstrip("0"))
    return float(f"{value:.{max(digits, 1) - 1}e}") == float(quoted)


def frontier_page_problems(source):
    folder = source / "docs" / "results" / "kernels"
    if not (folder / "README.md").is_file():
        return []
    with open(folder / "frontier.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    n, s = max(int(r["n"]) for r in rows), max(int(r["s"]) for r in rows)
    means = {}
    for r in rows:
        if int(r["n"]) == n and int(r["s"]) == s:
            means.setdefault((r["kernel"], r["sigma"], r["method"]), []).append(
                (float(r["rel_error"]), float(r["keys_per_query"])))
    out, quoted = [], 0
    lines = (folder / "README.md").read_text().splitlines()
    header = next((line for line in lines if line.startswith("| kernel | σ = ")), None)
    if header is None:
        return ["docs/results/kernels/README.md: no table '| kernel | σ = ... |'"]
    sigmas = [h.strip().removeprefix("σ = ") for h in header.strip("|").split("|")[1:]]
    for line in lines[lines.index(header) + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        for sigma, cell in zip(sigmas, cells[1:]):
            m = FRONTIER_CELL.match(cell)
            key = (kernel_spec(cells[0]), sigma)
            lsh, window = means.get(key + ("lsh",)), means.get(key + ("window",))
            if not m or not lsh or not window:
                out.append(f"docs/results/kernels/README.md: '{cells[0]}', σ = {sigma}: "
                           f"'{cell}' is not 'LSH vs WINDOW [(K keys)]' of a cell of frontier.csv")
                continue
            quoted += 1
            mean = lambda v, i: sum(x[i] for x in v) / len(v)  # noqa: E731
            for text, value, what in ((m.group(1), mean(lsh, 0), "LSH's error"),
                                      (m.group(2), mean(window, 0), "the window's error")):
                if not same_significant(text, value):
                    out.append(f"docs/results/kernels/README.md: '{cells[0]}', σ = {sigma}: {what} "
                               f"{text}, frontier.csv has {value:.3g}")
            if m.group(3) and round(mean(lsh, 1)) != int(m.group(3)):
                out.append(f"docs/results/kernels/README.md: '{cells[0]}', σ = {sigma}: "
                           f"{m.group(3)} keys, frontier.csv has {mean(lsh, 1):.0f}")
    return out if quoted else out + ["docs/results/kernels/README.md: its table quotes nothing"]


def frontier_page_self_test():
    table = FRONTIER_COLUMNS_SELF_TEST + "".join(
        f"laplace,2,{n},16,0,128,{t},{m},{s},,{k},{e},1\n"
        for n in (1024, 4096) for t in (0, 1) for s in (1, 4)
        for m, k, e in (("lsh", 3 * s + 2 * t, 0.0641 + 0.0001 * t), ("window", 2 * s + 1, 0.0)))
    good = "| kernel | σ = 2 |\n|---|---|\n| laplace (ALiBi) | 0.064 vs 0 (13 keys) |\n"
    plants = {good: [], good.replace("0.064 vs", "0.065 vs"): ["LSH's error 0.065"],
              good.replace("vs 0 (", "vs 1e-9 ("): ["the window's error 1e-9"],
              good.replace("13 keys", "12 keys"): ["12 keys, frontier.csv has 13"],
              good.replace("laplace (ALiBi)", "triangle"): ["is not 'LSH vs WINDOW", "quotes nothing"],
              good.replace("| kernel | σ = 2 |", "| model | s |"): ["no table"]}
    failures = 0
    for page, expected in plants.items():
        with tempfile.TemporaryDirectory() as tmp:
            folder = pathlib.Path(tmp) / "docs" / "results" / "kernels"
            folder.mkdir(parents=True)
            (folder / "frontier.csv").write_text(table)
            (folder / "README.md").write_text(page)
            found = frontier_page_problems(pathlib.Path(tmp))
        if not reported(found, expected):
            failures += 1
            print(f"self-test: frontier page {page!r}: expected {expected or 'no problem'}, got {found}")
    return failures


FRONTIER_COLUMNS_SELF_TEST = "kernel,sigma,n,d,head,rows,trial,method,s,half_width,keys_per_query,rel_error,max_error\n"


def unification_self_test():
    detail = ("window wins at s = 4,8; LSH wins at s = 1; undecided at s = 2 (one-sided sign tests); "
              "at s=8: 12 keys")
    checks = "table,verdict,check,detail\nfrontier,info,\"frontier[kernel=laplace]\",\"" + detail + "\"\n"
    good = "| kernels beyond ALiBi | in | window more accurate in 2 of 4 (kernel, σ, n, s), LSH in 1, undecided in 1 | x |"
    plants = {good: [], good.replace("in 2 of 4", "in 3 of 4"): ["quotes window 3 of 4"],
              good.replace("LSH in 1", "LSH in 0"): ["LSH 0"], "| other row |": ["has no claims row"],
              good.replace("window more", "LSH less"): ["quotes no"]}
    failures = 0
    for row, expected in plants.items():
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "docs" / "results" / "kernels").mkdir(parents=True)
            (root / "docs" / "results" / "kernels" / "checks.csv").write_text(checks)
            (root / "README.md").write_text(row + "\n")
            found = unification_problems(root)
        if not reported(found, expected):
            failures += 1
            print(f"self-test: kernels row {row!r}: expected {expected or 'no problem'}, got {found}")
    return failures


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    source = pathlib.Path(argv[1]) if len(argv) > 1 else pathlib.Path(__file__).resolve().parents[1]
    notes = []
    found = problems(source, notes) + unification_problems(source) + frontier_page_problems(source)
    for n in notes:
        print("README claims table: note:", n)
    for p in found:
        print("README claims table:", p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
