#!/usr/bin/env bash
# Builds randtensor with every test enabled and runs the whole suite.
# Usage: scripts/test.sh [--long|--long-only] [build-dir]   (default: build-test)
#   --long       also the tests labelled "long" (CI runs them): longer
#                versions of checks the default run makes.
#                python_package.fresh_build is pip's build from scratch (a
#                second build of the library), where python_package packages
#                this build's module.
#   --long-only  only the tests labelled "long", of a build this script has
#                made (CI runs them beside the emulated Arm tests: .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
select=(-LE long) build_it=1
case "${1:-}" in
  --long) select=(); shift ;;
  --long-only) select=(-L long --no-tests=error) build_it=0; shift ;;
esac
build="${1:-build-test}"
jobs="$(nproc)"

# Debian's interpreter has python3-pytest; a pyenv or venv python3 earlier on
# PATH may not.
python=/usr/bin/python3
[ -x "$python" ] || python="$(command -v python3)"

# Every part ON: a missing dependency is a configure error, never a part
# silently skipped (scripts/install-deps.sh test installs them all). Warnings
# are errors here (RANDTENSOR_WERROR: randtensor's own targets only).
if [ "$build_it" = 1 ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$python" \
    -DRANDTENSOR_BUILD_TESTS=ON -DRANDTENSOR_BUILD_BENCHMARKS=ON \
    -DRANDTENSOR_BUILD_PYTHON=ON -DRANDTENSOR_BUILD_STATS=ON -DRANDTENSOR_BUILD_MPI=ON \
    -DRANDTENSOR_BUILD_TORCH_BACKEND=ON \
    -DRANDTENSOR_WERROR=ON
  cmake --build "$build" -j "$jobs"
fi
# Optional Python engines (dask, torch) and valgrind are required here, not skipped.
RANDTENSOR_REQUIRE_DASK=1 RANDTENSOR_REQUIRE_TORCH=1 RANDTENSOR_REQUIRE_VALGRIND=1 ctest --test-dir "$build" --output-on-failure -j "$jobs" "${select[@]}"
