#!/usr/bin/env python3
"""Checks of the pages a user reads for how to use agrid: README.md and docs/*.md, but the pages
that keep the project's history (docs/benchmarks.md, docs/peers.md: measurements, and when and
why they changed).

Usage: check_pages.py CHECK REPO_ROOT      runs one check on the repository
       check_pages.py CHECK --self-test    checks that the check reports each kind of fault

CHECK is one of:
- version: the repository says one version, the CMake project's. The single source is
  `project(agrid VERSION X.Y.Z ...)` in CMakeLists.txt (<agrid/version.h>, Python's
  `agrid.__version__` and the package's version file are made from it). Must agree with it: the
  CHANGELOG's newest section ("## X.Y.Z ..." or "## Unreleased (to be X.Y.Z)"); every
  `find_package(agrid X.Y ...)` in the user's pages and in the CHANGELOG's newest section (X.Y
  is the project's major.minor: the package takes that minor version only); every "agrid X.Y"
  and "still work(s) in X.Y" in the user's pages.
- issue-numbers: no user's page sends its reader to one of the project's issues ("issue 31",
  "issues 25 and 26", "#31"): a page says the thing itself. A link to another project's tracker
  (an http(s) link, its text included) is a citation and allowed.
Exits 1 and lists each fault as file:line: what.
"""

import os
import re
import sys
import tempfile

HISTORY_PAGES = {"benchmarks.md", "peers.md"}


def user_pages(root):
    """README.md and docs/*.md, but the pages that keep history."""
    pages = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        pages += [os.path.join(docs, name) for name in sorted(os.listdir(docs))
                  if name.endswith(".md") and name not in HISTORY_PAGES]
    return [page for page in pages if os.path.isfile(page)]


def numbered_lines(path):
    with open(path, encoding="utf-8") as f:
        yield from enumerate(f, start=1)


# ---- version -------------------------------------------------------------------------------

PROJECT = re.compile(r"^\s*project\(\s*agrid\s+VERSION\s+(\d+\.\d+\.\d+)\b", re.MULTILINE)
SECTION = re.compile(r"^## ")
SECTION_VERSION = re.compile(r"^## (?:Unreleased \(to be )?(\d+\.\d+\.\d+)\b")
PACKAGE_MENTION = re.compile(r"find_package\(agrid (\d+\.\d+)\b")
# Where a page names the version it is about: the package it asks for, "agrid 0.4", and the
# names kept "in 0.4".
MENTIONS = (PACKAGE_MENTION, re.compile(r"\bagrid (\d+\.\d+)\b"), re.compile(r"\bstill works? in (\d+\.\d+)\b"))


def newest_section(changelog):
    """(line number, heading) of the CHANGELOG's newest section and [(line number, line)] in it."""
    heading, lines = None, []
    for number, line in numbered_lines(changelog):
        if SECTION.match(line):
            if heading is not None:
                break
            heading = (number, line.rstrip("\n"))
        elif heading is not None:
            lines.append((number, line))
    return heading, lines


def mentions_disagreeing(where, lines, minor, patterns):
    """file:line: what, for each version the lines mention that is not `minor`."""
    for number, line in lines:
        said = set()  # where each version number starts: find_package(agrid 0.4 is one mention
        for pattern in patterns:
            for match in pattern.finditer(line):
                if match.group(1) != minor and match.start(1) not in said:
                    said.add(match.start(1))
                    yield f"{where}:{number}: says {match.group(0)!r}, the project is {minor}"


def version_problems(root):
    cmake = os.path.join(root, "CMakeLists.txt")
    with open(cmake, encoding="utf-8") as f:
        project = PROJECT.search(f.read())
    if not project:
        return [f"{cmake}:1: no project(agrid VERSION X.Y.Z)"]
    version = project.group(1)
    minor = version.rsplit(".", 1)[0]
    found = []
    changelog = os.path.join(root, "CHANGELOG.md")
    heading, section = newest_section(changelog)
    if heading is None:
        found.append(f"{changelog}:1: no section")
    else:
        match = SECTION_VERSION.match(heading[1])
        if not match or match.group(1) != version:
            found.append(f"{changelog}:{heading[0]}: the newest section is {heading[1]!r}, the project is {version}")
        # The newest section says "Moving from 0.3": only the package it asks for is its own.
        found += mentions_disagreeing(changelog, section, minor, (PACKAGE_MENTION,))
    for page in user_pages(root):
        found += mentions_disagreeing(page, numbered_lines(page), minor, MENTIONS)
    return found


VERSION_AGREEING = {
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.25)\nproject(agrid VERSION 1.2.3 LANGUAGES CXX)\n",
    "CHANGELOG.md": "# Changelog\n\n## Unreleased (to be 1.2.3)\n\n### Moving from 1.1\n\n"
                    "- `find_package(agrid 1.2 CONFIG)`\n\n## 1.1.0\n\n- `find_package(agrid 1.1)`\n",
    "README.md": "find_package(agrid 1.2 CONFIG REQUIRED)\n",
    "docs/api.md": "The names of 1.1 still work in 1.2 and warn (renamed in agrid 1.2).\n",
    "docs/benchmarks.md": "measured with find_package(agrid 0.9)\n",
}
VERSION_FAULTS = {
    "the project's version differs from the CHANGELOG's": ("CMakeLists.txt", "project(agrid VERSION 1.3.0)\n"),
    "the CHANGELOG's newest section is older": ("CHANGELOG.md", "## Unreleased (to be 1.2.2)\n"),
    "the CHANGELOG's newest section has no version": ("CHANGELOG.md", "## Unreleased\n"),
    "the CHANGELOG's newest section asks for another package": ("CHANGELOG.md", "## 1.2.3\n\n- `find_package(agrid 1.1)`\n"),
    "the README asks for another package": ("README.md", "find_package(agrid 1.1 CONFIG REQUIRED)\n"),
    "a page names another version": ("docs/api.md", "Renamed in agrid 1.3.\n"),
    "a page keeps names in another version": ("docs/fcl.md", "The old name still works in 1.1.\n"),
}

# ---- issue-numbers -------------------------------------------------------------------------

EXTERNAL_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?https?://[^)]*\)|<https?://[^>]*>|https?://\S+")
ISSUE_NUMBER = re.compile(r"\bissues?\s+#?\d+|(?<![\w&/])#\d+\b", re.IGNORECASE)


def issue_number_problems(root):
    found = []
    for page in user_pages(root):
        for number, line in numbered_lines(page):
            for match in ISSUE_NUMBER.finditer(EXTERNAL_LINK.sub("", line)):
                found.append(f"{page}:{number}: sends the reader to {match.group(0)!r}: say the thing itself")
    return found


ISSUES_AGREEING = {
    "README.md": "Removal costs a body's own pairs (docs/benchmarks.md, \"Removal\").\n"
                 "Bullet reads filters when a pair is added ([Bullet issue 871](https://github.com/b/b/issues/871)).\n"
                 "```cpp\n#include <agrid/agrid.h>\n```\n",
    "docs/benchmarks.md": "## Results (issue 31)\n",
    "docs/peers.md": "Before issue 25 the grid ...\n",
}
ISSUES_FAULTS = {
    "an issue by number": ("README.md", "The tree (issue 25) splits ...\n"),
    "issues by number": ("docs/grid.md", "See issues 25 and 26.\n"),
    "an issue's section of another page": ("docs/api.md", "(docs/benchmarks.md, \"Results (Issue 31)\")\n"),
    "an issue by hash": ("docs/tree.md", "as asked in #31.\n"),
    "an issue by hash in a parenthesis": ("docs/fcl.md", "a faster collide (#34)\n"),
}

CHECKS = {
    "version": (version_problems, VERSION_AGREEING, VERSION_FAULTS),
    "issue-numbers": (issue_number_problems, ISSUES_AGREEING, ISSUES_FAULTS),
}


def self_test(check):
    """A made-up repository that passes is not reported; each fault written into it is."""
    problems, passing, faults = CHECKS[check]
    failures = []
    with tempfile.TemporaryDirectory() as base:
        def repository(name, extra):
            root = os.path.join(base, name)
            for path, text in {**passing, **extra}.items():
                full = os.path.join(root, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w", encoding="utf-8") as f:
                    f.write(text)
            return root

        if problems(repository("passing", {})):
            failures.append(f"a passing repository was reported: {problems(repository('passing', {}))}")
        for i, (what, (path, text)) in enumerate(faults.items()):
            if not problems(repository(f"fault{i}", {path: text})):
                failures.append(f"not reported: {what}")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


def main(argv):
    if len(argv) != 3 or argv[1] not in CHECKS:
        print(__doc__)
        return 2
    if argv[2] == "--self-test":
        return self_test(argv[1])
    found = CHECKS[argv[1]][0](argv[2])
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
