"""Builds the Python package agrid with CMake: the core library and the native module only (no
tests, demos, benchmarks or adapters), into the wheel beside adapters/python/agrid's files.

pip install .                          with a package index (pyproject.toml's requirements)
pip install --no-build-isolation .     without one: Debian's python3-setuptools, python3-pybind11, cmake

CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs (default: every core); CMAKE_CXX_COMPILER_LAUNCHER
(e.g. ccache) is passed to CMake as it reads it.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGE_DIR = "adapters/python/agrid"  # relative: setuptools wants package_dir so

# Everything but the core and the module is off: a user's install builds only what it installs.
CMAKE_OPTIONS = {
    "CMAKE_BUILD_TYPE": "Release",
    "AGRID_BUILD_PYTHON": "ON",
    "AGRID_BUILD_TESTS": "OFF",
    "AGRID_BUILD_DEMOS": "OFF",
    "AGRID_BUILD_BENCHMARKS": "OFF",
    "AGRID_BUILD_DOCS": "OFF",
    "AGRID_BUILD_BULLET": "OFF",
    "AGRID_WITH_FCL": "OFF",
    "AGRID_INSTALL": "OFF",
}


def project_version():
    """The version of project(agrid VERSION x.y.z) in the top CMakeLists.txt."""
    match = re.search(r"project\(agrid\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", (ROOT / "CMakeLists.txt").read_text())
    if match is None:
        raise RuntimeError("CMakeLists.txt has no project(agrid VERSION ...)")
    return match.group(1)


def pybind11_options():
    """-Dpybind11_DIR from the pybind11 Python package when there is one (an isolated build's);
    else CMake finds pybind11-dev's own package."""
    try:
        import pybind11
    except ImportError:
        return []
    return ["-Dpybind11_DIR=" + pybind11.get_cmake_dir()]


class CMakeBuild(build_ext):
    """build_ext by CMake: configure, build the target agrid_python, copy the module out."""

    def build_extension(self, ext):
        build_dir = Path(self.build_temp).resolve() / "cmake"
        options = ["-D%s=%s" % item for item in CMAKE_OPTIONS.items()]
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DPython3_EXECUTABLE=" + sys.executable,
                     *options, *pybind11_options()]
        subprocess.run(configure, check=True)
        build = ["cmake", "--build", str(build_dir), "--target", "agrid_python"]
        if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ:
            build += ["--parallel", str(os.cpu_count() or 1)]
        subprocess.run(build, check=True)
        built = sorted((build_dir / "python" / "agrid").glob("_agrid*.so"))
        if len(built) != 1:
            raise RuntimeError("the CMake build made %d modules, not one: %s" % (len(built), built))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    version=project_version(),
    packages=["agrid"],
    package_dir={"agrid": PACKAGE_DIR},
    package_data={"agrid": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("agrid._agrid", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Not build/: that is the CMake presets' build tree.
    options={"build": {"build_base": "build-pip"}},
    zip_safe=False,
)
