#!/usr/bin/env bash
# The Python packaging, as a user meets it:
#   1. `pip install --no-build-isolation .` (pyproject.toml + setup.py, which
#      drives CMake) builds the module for the interpreter that runs pip (and
#      randtensor.torch's backend where libtorch is installed), and the
#      installed package imports and fills outside the source tree;
#   2. configuring the module for an interpreter without NumPy fails at
#      configure time and says so.
#
#   tests/python_package_test.sh REPO_ROOT [PYTHON [BUILD_DIR]]   (PYTHON: default python3)
#
# Without BUILD_DIR, pip's build configures and compiles the module from
# scratch (the library's kernels and the backend's PyTorch headers: minutes on
# 2 cores). With it (a build of the project configured for PYTHON, with the
# module built: the suite's own), setup.py builds the module's targets there
# as they are (RANDTENSOR_CMAKE_CONFIGURED) and packages what it finds.
# Installs into a temporary --target directory (nothing outside it changes,
# apart from setuptools' files under REPO_ROOT/build/pip and, with BUILD_DIR,
# its module where it was out of date). Needs pip, setuptools and wheel for
# PYTHON (python3-pip, python3-setuptools, python3-wheel).
set -euo pipefail

root=$(cd "$1" && pwd)
python=${2:-python3}
build=${3:+$(cd "$3" && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$python" -m pip --version >/dev/null 2>&1; then
  echo "python_package_test: no pip for $python (python3-pip; scripts/install-deps.sh test)" >&2
  exit 1
fi

# 1. Install, then import from a directory that is not the source tree.
if [ -n "$build" ]; then
  export RANDTENSOR_CMAKE_BUILD_DIR="$build" RANDTENSOR_CMAKE_CONFIGURED=1
else
  export RANDTENSOR_CMAKE_BUILD_DIR="$tmp/cmake"
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
"$python" -m pip install --quiet --root-user-action=ignore --no-build-isolation --no-deps --no-index \
  --target "$tmp/site" "$root"
ls "$tmp"/site/randtensor/_core*.so "$tmp/site/randtensor/__init__.py" >/dev/null

cd "$tmp"
PYTHONPATH="$tmp/site" PYTHONNOUSERSITE=1 "$python" - "$tmp/site" <<'EOF'
import sys
import numpy as np
import randtensor

site = sys.argv[1]
assert randtensor.__file__.startswith(site), randtensor.__file__
a = np.empty((3, 5), np.uint32)
state = randtensor.fill(a, seed=42)
# Element e is word e % 4 of block e // 4 (the module's scalar reference).
blocks = [randtensor.philox_block([b, 0, 0, 0], [42, 0]) for b in range(4)]
assert a.ravel().tolist() == [blocks[e // 4][e % 4] for e in range(15)]
assert state.tolist() == [4, 0, 0, 0, 42, 0]
g = np.random.Generator(randtensor.Philox4x32(seed=42))
assert 0 <= g.random() < 1
try:
    import torch
except ImportError:
    torch = None
if torch is not None:  # the backend comes with the package where libtorch is
    import randtensor.torch as rt
    with rt.installed():
        torch.manual_seed(42)
        u = torch.rand(4)
        assert rt.get_offset() == 4
    assert not rt.is_installed()
    assert u.tolist() == randtensor.uniform((4,), seed=42).tolist()
print(f"installed randtensor {randtensor.__version__} from {randtensor.__file__}: OK")
EOF

# 2. An interpreter without NumPy: Debian's python3 without its site
#    packages (-S) stands in for one.
printf '#!/bin/sh\nexec %s -S "$@"\n' "$(command -v "$python")" > "$tmp/python-without-numpy"
chmod +x "$tmp/python-without-numpy"
if "$tmp/python-without-numpy" -c "import numpy" 2>/dev/null; then
  echo "python_package_test: $python -S still imports NumPy; cannot test the configure check" >&2
  exit 1
fi
if cmake -S "$root" -B "$tmp/no-numpy" -DRANDTENSOR_BUILD_PYTHON=ON \
     -DRANDTENSOR_BUILD_TESTS=OFF -DRANDTENSOR_BUILD_BENCHMARKS=OFF \
     -DRANDTENSOR_BUILD_STATS=OFF -DRANDTENSOR_BUILD_MPI=OFF \
     -DPython3_EXECUTABLE="$tmp/python-without-numpy" >"$tmp/configure.log" 2>&1; then
  echo "python_package_test: configuring for an interpreter without NumPy succeeded" >&2
  exit 1
fi
# CMake wraps its messages: compare with the line breaks taken out.
if ! tr -s ' \n' '  ' <"$tmp/configure.log" |
     grep -q "needs NumPy for $tmp/python-without-numpy"; then
  echo "python_package_test: the configure error does not name NumPy:" >&2
  cat "$tmp/configure.log" >&2
  exit 1
fi
echo "configuring for an interpreter without NumPy fails, naming NumPy: OK"
