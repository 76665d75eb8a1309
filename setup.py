"""Builds the `randtensor` Python package with CMake: `pip install .`

setuptools (Debian's python3-setuptools; bookworm has no scikit-build) drives
the project's own CMake build, so the extension is compiled exactly as
`cmake -DRANDTENSOR_BUILD_PYTHON=ON` compiles it, for the interpreter that
runs pip (-DPython3_EXECUTABLE=sys.executable). The pure-Python files come
from python/randtensor/. With Debian's setuptools, skip build isolation:

    pip install --no-build-isolation .

Environment: CMAKE_BUILD_PARALLEL_LEVEL (default: all CPUs), CMAKE_ARGS
(extra -D options, space-separated), RANDTENSOR_CMAKE_BUILD_DIR (a build
directory of this setup.py's own to reuse between installs), and
RANDTENSOR_CMAKE_CONFIGURED=1: RANDTENSOR_CMAKE_BUILD_DIR is a build of the
project configured already, with the Python module for this interpreter (as
scripts/test.sh's is): its module targets are built there, as they are, and
nothing is configured (tests/python_package_test.sh installs the suite's own
build that way).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    """The version in CMakeLists.txt's project(), the one place it is set."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(randtensor\s+VERSION\s+([0-9.]+)", f.read())
    if match is None:
        raise RuntimeError("CMakeLists.txt: no project(randtensor VERSION ...)")
    return match.group(1)


def configure(build_dir):
    """Configures the project in build_dir for this interpreter, the module
    (and its PyTorch backend) only."""
    os.makedirs(build_dir, exist_ok=True)
    subprocess.run([
        "cmake", "-S", ROOT, "-B", build_dir,
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DPython3_EXECUTABLE={sys.executable}",
        # Only the module: ON makes a missing dependency (NumPy for this
        # interpreter, pybind11, python3-dev) a configure error naming it.
        "-DRANDTENSOR_BUILD_PYTHON=ON",
        "-DRANDTENSOR_BUILD_TESTS=OFF", "-DRANDTENSOR_BUILD_BENCHMARKS=OFF",
        "-DRANDTENSOR_BUILD_STATS=OFF", "-DRANDTENSOR_BUILD_MPI=OFF",
        "-DRANDTENSOR_BUILD_TOOLS=OFF", "-DRANDTENSOR_BUILD_SHARED=OFF",
        "-DRANDTENSOR_INSTALL=OFF",
    ] + shlex.split(os.environ.get("CMAKE_ARGS", "")), check=True)


def check_configured(build_dir):
    """A build directory configured elsewhere must be of this source tree (the
    package's Python files come from here) and for this interpreter (another
    one's extension would not import)."""
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if not os.path.isfile(cache):
        raise RuntimeError(f"RANDTENSOR_CMAKE_CONFIGURED=1: no CMakeCache.txt in {build_dir}")
    with open(cache, encoding="utf-8") as f:
        text = f.read()
    for name, want in [("CMAKE_HOME_DIRECTORY", ROOT), ("Python3_EXECUTABLE", sys.executable)]:
        match = re.search(rf"^{name}:[A-Z]+=(.*)$", text, re.MULTILINE)
        found = match.group(1) if match else "nothing"
        if match is None or os.path.realpath(found) != os.path.realpath(want):
            raise RuntimeError(f"RANDTENSOR_CMAKE_CONFIGURED=1: {build_dir} is configured with "
                               f"{name}={found}, not {want}")


class CMakeBuild(build_ext):
    """Builds randtensor._core (and randtensor.torch's backend where libtorch
    is installed) with CMake, configured for this interpreter."""

    def build_extension(self, ext):
        build_dir = os.environ.get("RANDTENSOR_CMAKE_BUILD_DIR") or os.path.join(
            os.path.abspath(self.build_temp), "cmake")
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        if os.environ.get("RANDTENSOR_CMAKE_CONFIGURED") == "1":
            check_configured(build_dir)
        else:
            configure(build_dir)
        subprocess.run(["cmake", "--build", build_dir, "--target", "randtensor_python",
                        "--parallel", jobs], check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = os.path.join(build_dir, "python", "randtensor", "_core" + suffix)
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)
        # randtensor.torch.install()'s backend, where libtorch is installed
        # (CMake defines the target only then; Debian: libtorch-dev).
        targets = subprocess.run(["cmake", "--build", build_dir, "--target", "help"],
                                 check=True, capture_output=True, text=True).stdout
        if "randtensor_torch_backend" in targets:
            subprocess.run(["cmake", "--build", build_dir, "--target", "randtensor_torch_backend",
                            "--parallel", jobs], check=True)
            shutil.copyfile(os.path.join(build_dir, "python", "randtensor", "_torch_backend.so"),
                            os.path.join(os.path.dirname(target), "_torch_backend.so"))


# setuptools' own files (build/lib..., build/temp..., randtensor.egg-info)
# go under build/pip/: ignored by git, apart from a CMake build in build/.
BUILD_BASE = os.path.join("build", "pip")
os.makedirs(os.path.join(ROOT, BUILD_BASE), exist_ok=True)

setup(
    version=project_version(),
    packages=["randtensor"],
    package_dir={"randtensor": "python/randtensor"},
    ext_modules=[Extension("randtensor._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
    zip_safe=False,
)
