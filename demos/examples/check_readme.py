"""Fails when a README.md code block marked `<!-- example: PATH -->` differs from the file PATH,
or when an example named on the command line has no such block: the README shows the examples
as they are built and run (demos/examples), so they cannot drift apart.

Usage: check_readme.py REPOSITORY_ROOT PATH... (PATH relative to the root)
"""

import difflib
import pathlib
import re
import sys

# The marker, then at once a fenced block; its text up to the closing fence.
MARKED_BLOCK = re.compile(r"^<!-- example: (\S+) -->\n```\w*\n(.*?)^```$", re.S | re.M)


def problems(root, required):
    shown = MARKED_BLOCK.findall((root / "README.md").read_text())
    found = []
    for path in required:
        if path not in dict(shown):
            found.append(f"README.md has no block marked <!-- example: {path} -->")
    for path, block in shown:
        file = root / path
        if not file.is_file():
            found.append(f"README.md shows {path}, which is not a file")
            continue
        text = file.read_text()
        if block != text:
            diff = difflib.unified_diff(text.splitlines(True), block.splitlines(True), path, f"README.md's block of {path}")
            found.append(f"README.md's block differs from {path}:\n" + "".join(diff))
    return found


def main():
    root, required = pathlib.Path(sys.argv[1]), sys.argv[2:]
    found = problems(root, required)
    for problem in found:
        print(problem, file=sys.stderr)
    if not found:
        print(f"README.md shows {', '.join(required)} as they are")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
