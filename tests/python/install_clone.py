#!/usr/bin/env python3
"""pip install from a clean clone, as a user with no package index would: clone the repository
at HEAD into a temporary folder, make a virtual environment with the system's packages (Debian's
python3-numpy, python3-setuptools, python3-pybind11), `pip install --no-build-isolation --no-index`
the clone into it, then import agrid there and check its version and a few pairs.

    install_clone.py <repository> <work folder>

Only what HEAD holds is installed: commit before running it. The clone and the environment are
removed afterwards unless AGRID_KEEP_INSTALL_TEST is set.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Run inside the environment: the installed package, away from the clone and the build tree.
CHECK = """
import os, re, sys
import numpy as np
import agrid
assert "site-packages" in agrid.__file__, agrid.__file__
package = os.path.dirname(agrid.__file__)
assert all(os.path.exists(os.path.join(package, f)) for f in ("__init__.pyi", "py.typed")), os.listdir(package)
version = re.search(r"project\\(agrid\\s+VERSION\\s+([0-9.]+)", open(sys.argv[1]).read()).group(1)
assert agrid.__version__ == version, (agrid.__version__, version)
mins = np.array([[0, 0, 0], [0.5, 0.5, 0.5], [5, 5, 5], [1, 1, 1]], dtype=np.float32)
assert agrid.find_all_pairs(mins, mins + 1).tolist() == [[0, 1], [0, 3], [1, 3]]
bp = agrid.Broadphase()
handles = bp.create(mins, mins + 1)
began, _ = bp.update()
assert began.tolist() == [[0, 1], [0, 3], [1, 3]] and handles.tolist() == [0, 1, 2, 3]
print("agrid", agrid.__version__, "from", agrid.__file__)
"""


def run(*command, **kwargs):
    print("+", " ".join(str(c) for c in command), flush=True)
    subprocess.run([str(c) for c in command], check=True, **kwargs)


def main():
    repository, work = Path(sys.argv[1]), Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="pip-install-", dir=work))
    try:
        clone, venv = folder / "agrid", folder / "venv"
        run("git", "clone", "--quiet", "--no-hardlinks", repository, clone)
        run(sys.executable, "-m", "venv", "--system-site-packages", venv)
        python = venv / "bin" / "python"
        env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        env.pop("PYTHONPATH", None)  # the build tree's package must not stand in for the installed one
        run(python, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-index", clone, env=env)
        run(python, "-c", CHECK, clone / "CMakeLists.txt", env=env, cwd=folder)
    finally:
        if not os.environ.get("AGRID_KEEP_INSTALL_TEST"):
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
