#!/usr/bin/env python3
"""Checks that every relative link of the repository's Markdown pages leads inside it.

Usage: check_links.py REPO_ROOT      checks README.md, the other *.md at the root and docs/*.md
       check_links.py --self-test    checks that broken links of each kind are reported

A link is a Markdown link or image (`[text](target)`, `![alt](target)`, `[label]: target`) or
an HTML `href`/`src`, outside code blocks and code spans. http(s) and mailto links are allowed
as they are; every other target must name a file or directory inside the repository, and its
`#anchor`, if any, a heading (GitHub's anchor for it) or an explicit id of the Markdown page it
names. Exits 1 and lists the broken links, one a line, as file:line: target: why.
"""

import os
import re
import sys
import tempfile
import urllib.parse

ALLOWED_SCHEMES = ("http", "https", "mailto")

INLINE_LINK = re.compile(r"\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ATTRIBUTE = re.compile(r"\b(?:href|src)\s*=\s*\"([^\"]*)\"")
SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
FENCE = re.compile(r"^ {0,3}(```+|~~~+)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)*?\1")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
EXPLICIT_ID = re.compile(r"\{#([\w-]+)\}|\b(?:id|name)\s*=\s*\"([^\"]+)\"")


def text_lines(path):
    """(line number, line, line with its code spans removed) outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            opening = FENCE.match(line)
            if fence is None and opening:
                fence = opening.group(1)[0] * len(opening.group(1))
                continue
            if fence is not None:
                if line.strip().startswith(fence):
                    fence = None
                continue
            line = line.rstrip("\n")
            yield number, line, CODE_SPAN.sub("", line)


def github_anchor(heading):
    """The anchor GitHub gives a heading: its text, lowercased, punctuation dropped, '-' for ' '."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    """Every anchor of a Markdown page: its headings' (numbered when repeated) and explicit ids."""
    found = set()
    seen = {}
    for _, line, text in text_lines(path):
        heading = HEADING.match(line)
        if heading:
            anchor = github_anchor(heading.group(1))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            found.add(anchor if count == 0 else f"{anchor}-{count}")
        for match in EXPLICIT_ID.finditer(text):
            found.add(match.group(1) or match.group(2))
    return found


def targets(line):
    """Every link target on one line of text."""
    for pattern in (INLINE_LINK, REFERENCE_DEFINITION, HTML_ATTRIBUTE):
        for match in pattern.finditer(line):
            yield match.group(1).strip("<>")


def problem(root, page, target):
    """Why `target`, linked from `page`, is broken; None if it is not."""
    scheme = SCHEME.match(target)
    if scheme:
        allowed = scheme.group(1).lower() in ALLOWED_SCHEMES
        return None if allowed else f"scheme {scheme.group(1)}: is not allowed"
    path, _, anchor = target.partition("#")
    path = urllib.parse.unquote(path)
    if path == "":
        resolved = page
    elif path.startswith("/"):
        resolved = os.path.join(root, path.lstrip("/"))
    else:
        resolved = os.path.join(os.path.dirname(page), path)
    resolved = os.path.realpath(resolved)
    if os.path.commonpath([resolved, os.path.realpath(root)]) != os.path.realpath(root):
        return "points outside the repository"
    if not os.path.exists(resolved):
        return "no such file"
    if anchor and resolved.endswith(".md") and urllib.parse.unquote(anchor) not in anchors(resolved):
        return f"no heading or id #{anchor} in {os.path.relpath(resolved, root)}"
    return None


def pages(root):
    """README.md, the other Markdown pages at the root, and docs/*.md."""
    found = []
    for folder in (root, os.path.join(root, "docs")):
        if os.path.isdir(folder):
            found += sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".md"))
    return found


def broken_links(root):
    """(page, line, target, why) for every broken link, and the number of links checked."""
    broken = []
    checked = 0
    for page in pages(root):
        for number, _, text in text_lines(page):
            for target in targets(text):
                checked += 1
                why = problem(root, page, target)
                if why:
                    broken.append((os.path.relpath(page, root), number, target, why))
    return broken, checked


def check(root):
    """Reports the broken links of the repository at `root`; 0 if there are none."""
    if not os.path.isfile(os.path.join(root, "README.md")):
        print(f"check_links: no README.md in {root}", file=sys.stderr)
        return 1
    broken, checked = broken_links(root)
    for page, number, target, why in broken:
        print(f"{page}:{number}: {target}: {why}", file=sys.stderr)
    print(f"check_links: {checked} links in {len(pages(root))} pages, {len(broken)} broken")
    return 1 if broken else 0


SELF_TEST_README = """# Title

## A heading, with `code`

[fine](docs/page.md) [fine anchor](#a-heading-with-code) [fine too](docs/page.md#section)
![fine image](docs/img.png) [web](https://example.org/x) <img src="docs/img.png">
[missing](docs/none.md)
![missing image](docs/none.png)
[outside](../outside.md)
[bad anchor](#no-such-heading)
[bad anchor elsewhere](docs/page.md#nowhere)
[local file](file:///etc/passwd)
[reference]: docs/gone.md
`[in a code span](docs/none.md)`

```
[in a code block](docs/none.md)
```
"""


def self_test():
    """Every kind of broken link in a made-up repository is reported, and no sound one."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as f:
            f.write(SELF_TEST_README)
        with open(os.path.join(root, "docs", "page.md"), "w", encoding="utf-8") as f:
            f.write("# Page\n\n## Section\n\n[back](../README.md)\n")
        open(os.path.join(root, "docs", "img.png"), "wb").close()
        broken, checked = broken_links(root)
    expected = ["docs/none.md", "docs/none.png", "../outside.md", "#no-such-heading", "docs/page.md#nowhere",
                "file:///etc/passwd", "docs/gone.md"]
    found = [target for _, _, target, _ in broken]
    sound = 7  # links in the made-up pages that must pass
    if found != expected or checked != len(expected) + sound:
        print(f"check_links self-test: reported {found} of {checked} links; expected {expected} of "
              f"{len(expected) + sound}", file=sys.stderr)
        return 1
    print(f"check_links self-test: all {len(expected)} broken links reported, none of the {sound} sound ones")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return check(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
