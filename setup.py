"""Builds the extension poslsh._core with the project's CMake build, for
`pip install --no-build-isolation .` (metadata: pyproject.toml).

The CMake build directory is $POSLSH_BUILD_DIR when set (an existing build
is reused: only the target poslsh_python is brought up to date), else
build/pip in the source tree. Needs what scripts/deps installs (cmake, g++,
Eigen, Spectra, Boost.Math, fmt, pybind11)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(os.environ.get("POSLSH_BUILD_DIR") or ROOT / "build" / "pip").resolve()
        if not (build / "CMakeCache.txt").exists():
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                                   "-DPOSLSH_BUILD_TESTS=OFF", f"-DPYTHON_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", str(build), "--target", "poslsh_python", "-j",
                               str(os.cpu_count() or 1)])
        built = sorted((build / "python" / "poslsh").glob("_core*.so"))
        if not built:
            sys.exit(f"setup.py: the CMake build in {build} made no poslsh/_core*.so")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


# setuptools' intermediate files in build/setuptools, apart from CMake's in build/.
setup(ext_modules=[Extension("poslsh._core", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build/setuptools"}})
