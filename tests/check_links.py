#!/usr/bin/env python3
"""ctest structure.doc_links_resolve: every relative link in README.md and
docs/*.md resolves. The README is short and points into docs/, and pages move
and get renamed; a link that no longer resolves sends a reader nowhere,
silently. A link `[text](path)` or `![alt](path)` (or a reference definition
`[label]: path`) must name a file or directory that exists, relative to the
page; `path#anchor` and `#anchor` must also name a heading of that Markdown
file, as GitHub spells heading anchors (lower case, punctuation dropped,
spaces to hyphens, `-1`, `-2` for repeats), or an `<a id="...">`. Links to
other sites are not followed. Code (fenced blocks and `inline spans`) is not
prose, so brackets there are not links. Every page of docs/ must be linked
from README.md (its docs index), so that no page is reachable only by
knowing its name.

Usage: check_links.py [SOURCE_DIR]        (default: the tree this script is in)
       check_links.py --self-test [SOURCE_DIR]
  --self-test  the negative control: plants broken links (a missing page, a
               missing anchor), a good one and a page no link reaches in a
               scratch copy of the pages; each broken link and the unlinked
               page must be reported, the good link not
"""
import functools
import pathlib
import re
import shutil
import sys
import tempfile

FENCE = re.compile(r"^ {0,3}(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target "title"): the text may hold one level of brackets (E[M]).
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def outside_code(text):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
        else:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path):
    """The anchors a link into the Markdown file path may name."""
    names, seen = set(), {}
    for _, line in outside_code(path.read_text(encoding="utf-8")):
        names.update(HTML_ANCHOR.findall(line))
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            names.add(base if count == 0 else f"{base}-{count}")
    return names


def problem(page, target):
    """Why target (a link on page) does not resolve, or None."""
    if EXTERNAL.match(target):
        return None
    path_part, _, anchor = target.partition("#")
    resolved = (page.parent / path_part).resolve() if path_part else page
    if not resolved.exists():
        return f"no file {path_part}"
    if anchor and resolved.suffix == ".md" and resolved.is_file():
        if anchor not in anchors(resolved):
            return f"no heading #{anchor} in {resolved.name}"
    return None


def pages(root):
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def links(page):
    """(line number, target) of every link on page."""
    for number, line in outside_code(page.read_text(encoding="utf-8")):
        prose = INLINE_CODE.sub("", line)
        for target in LINK.findall(prose) + REFERENCE.findall(prose):
            yield number, target


def broken_links(root):
    found = []
    for page in pages(root):
        for number, target in links(page):
            why = problem(page, target)
            if why:
                found.append(f"{page.relative_to(root)}:{number}: ({target}): {why}")
    readme = root / "README.md"
    indexed = {(readme.parent / t.partition("#")[0]).resolve() for _, t in links(readme)}
    found += [f"{page.relative_to(root)}: no link from README.md (add it to the docs index)"
              for page in pages(root)[1:] if page.resolve() not in indexed]
    return found


def check(root):
    found = broken_links(root)
    for line in found:
        print(f"check_links: {line}", file=sys.stderr)
    if found:
        print(f"check_links: {len(found)} broken links or unlinked pages", file=sys.stderr)
        return 1
    print(f"check_links: every relative link of {len(pages(root))} pages resolves, and "
          "README.md links every page of docs/")
    return 0


PLANTED_BROKEN = ["docs/no-such-page.md", "docs/MATH.md#no-such-section"]
PLANTED_GOOD = "docs/MATH.md#1-objects"
PLANTED_ORPHAN = "docs/planted-orphan.md"


def self_test(root):
    """Broken links and an unlinked page planted in a scratch copy are reported; a
    good link is not."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = pathlib.Path(scratch)
        (copy / "docs").mkdir()
        for page in pages(root):
            shutil.copy(page, copy / page.relative_to(root))
        for entry in root.iterdir():  # what the pages link to besides themselves
            if entry.name not in ("README.md", "docs", ".git"):
                (copy / entry.name).symlink_to(entry)
        planted = "".join(f"\nA planted link: [here]({t}).\n" for t in PLANTED_BROKEN + [PLANTED_GOOD])
        with open(copy / "README.md", "a", encoding="utf-8") as readme:
            readme.write(planted)
        (copy / PLANTED_ORPHAN).write_text("# A page no link reaches\n", encoding="utf-8")
        found = broken_links(copy)
    missed = [t for t in PLANTED_BROKEN if not any(f"({t})" in line for line in found)]
    if not any(line.startswith(f"{PLANTED_ORPHAN}: no link") for line in found):
        missed.append(PLANTED_ORPHAN)
    false = [line for line in found if f"({PLANTED_GOOD})" in line]
    if missed or false:
        print(f"check_links --self-test: not reported: {missed}; good link reported: {false}",
              file=sys.stderr)
        return 1
    print("check_links --self-test: both planted broken links and the unlinked page reported, "
          "the good link not")
    return 0


def main(argv):
    args = argv[1:]
    test = "--self-test" in args
    args = [a for a in args if a != "--self-test"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        sys.exit(__doc__)
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parents[1]).resolve()
    return self_test(root) if test else check(root)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
