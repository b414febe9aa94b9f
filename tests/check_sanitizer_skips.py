#!/usr/bin/env python3
"""ctest structure.sanitizer_skips_name_tests: every test the sanitizer pass of
scripts/test means to skip is a test ctest knows. The skip list is one regular
expression, `^(A|B|C\\.(x|y))$`; an alternative that matches no ctest name
skips nothing, silently (the SIGTERM resume test ran in every sanitizer pass
because its ctest name ends in "  # GetParam() = 15", which `...SIGTERM$`
never matched). Each alternative, with a group of alternatives inside it
expanded, must match a name of `ctest -N` in BUILD_DIR, the names the
sanitizer pass filters.

Usage: check_sanitizer_skips.py SOURCE_DIR BUILD_DIR [--pattern REGEX]
  --pattern  check this expression instead of scripts/test's (the negative
             control: a pattern that skips nothing must be reported)
"""
import re
import subprocess
import sys


def skip_pattern(source_dir):
    text = open(f"{source_dir}/scripts/test", encoding="utf-8").read()
    found = re.search(r"^\s*sanitizer_skip='([^']*)'$", text, re.M)
    if not found:
        sys.exit("check_sanitizer_skips: no sanitizer_skip='...' line in scripts/test")
    return found.group(1)


def split_top(expr):
    """The alternatives of expr at parenthesis depth 0."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(expr):
        if c == "(" and (i == 0 or expr[i - 1] != "\\"):
            depth += 1
        elif c == ")" and expr[i - 1] != "\\":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(expr[start:i])
            start = i + 1
    parts.append(expr[start:])
    return parts


def expand(alternative):
    """The alternative with its first group of alternatives, if any, expanded."""
    depth, open_at = 0, None
    for i, c in enumerate(alternative):
        if c == "(" and (i == 0 or alternative[i - 1] != "\\"):
            if depth == 0:
                open_at = i
            depth += 1
        elif c == ")" and alternative[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                inner = alternative[open_at + 1 : i]
                if len(split_top(inner)) > 1:
                    head, tail = alternative[:open_at], alternative[i + 1 :]
                    return [head + part + tail for part in split_top(inner)]
    return [alternative]


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--pattern"):
        sys.exit(__doc__)
    pattern = argv[4] if len(argv) == 5 else skip_pattern(argv[1])
    if not (pattern.startswith("^(") and pattern.endswith(")$")):
        sys.exit(f"check_sanitizer_skips: expected ^(...)$, got {pattern[:40]}...")
    listing = subprocess.run(["ctest", "--test-dir", argv[2], "-N"], capture_output=True,
                             text=True, check=True).stdout
    names = re.findall(r"^\s*Test\s+#\d+: (.*)$", listing, re.M)
    if len(names) < 100:
        sys.exit(f"check_sanitizer_skips: ctest -N in {argv[2]} listed {len(names)} tests")
    dead = [alt for top in split_top(pattern[2:-2]) for alt in expand(top)
            if not any(re.fullmatch(alt, name) for name in names)]
    for alt in dead:
        print(f"check_sanitizer_skips: '{alt}' matches no test: the sanitizer pass runs "
              "what it means to skip", file=sys.stderr)
    if dead:
        return 1
    print(f"check_sanitizer_skips: every skipped name matches one of {len(names)} tests")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
