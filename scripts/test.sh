#!/usr/bin/env bash
# Builds randtensor with every test enabled and runs the whole suite.
# Usage: scripts/test.sh [--install-deps] [--all-targets] [--long|--long-only] [build-dir]
#                                                          (default: build-test)
#   --install-deps  first install what the tests need (scripts/install-deps.sh
#                test), compiling the library's kernels meanwhile: they need
#                only the build dependencies, which it installs before.
#   --all-targets  compile the kernels for every x86 target, AVX3 even where
#                this CPU cannot run it (CI does: a compile error in AVX3's
#                code fails CI on every host). By default AVX3 is compiled
#                only where the CPU has AVX-512 (below).
#   --long       also the tests labelled "long" (CI runs them): longer
#                versions of checks the default run makes.
#                python_package.fresh_build is pip's build from scratch (a
#                second build of the library), where python_package packages
#                this build's module.
#   --long-only  only the tests labelled "long", of a build this script has
#                made (CI runs them beside the emulated Arm tests: .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/cpu.sh
select=(-LE long) build_it=1 install=0 all_targets=0
while [ $# -gt 0 ]; do
  case "$1" in
    --install-deps) install=1 ;;
    --all-targets) all_targets=1 ;;
    --long) select=() ;;
    --long-only) select=(-L long --no-tests=error) build_it=0 ;;
    -*) echo "test.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
build="${1:-build-test}"
jobs="$(nproc)"

# Every x86 target's kernels run natively in this suite except AVX3 on a CPU
# without AVX-512, where no test could run them: there they are left out
# (HWY_DISABLED_TARGETS), as their units are a third of the kernels'
# compile, unless --all-targets. The library a user builds (CMake's
# defaults, pip) always has every target.
kernel_flags=""
if [ "$all_targets" = 0 ] && [ "$(uname -m)" = x86_64 ] && ! cpu_runs_avx3; then
  kernel_flags="-DHWY_DISABLED_TARGETS=$HWY_AVX3_BIT"
fi
# Warnings are errors here (RANDTENSOR_WERROR: randtensor's own targets only).
common=(-DCMAKE_BUILD_TYPE=Release -DRANDTENSOR_WERROR=ON -DRANDTENSOR_KERNEL_FLAGS="$kernel_flags")

if [ "$install" = 1 ]; then
  scripts/install-deps.sh build
  # The rest of the packages (PyTorch, Open MPI, TestU01, ...: most of the
  # download and unpacking) install while the kernels, the longest part of
  # the build, compile in a configuration without the optional parts;
  # configured again with them below, the build keeps those objects.
  mkdir -p "$build"
  scripts/install-deps.sh test > "$build/install-deps.log" 2>&1 &
  installing=$!
  built=0
  cmake -S . -B "$build" "${common[@]}" -DRANDTENSOR_BUILD_TOOLS=OFF \
    -DRANDTENSOR_BUILD_TESTS=OFF -DRANDTENSOR_BUILD_BENCHMARKS=OFF -DRANDTENSOR_BUILD_PYTHON=OFF \
    -DRANDTENSOR_BUILD_STATS=OFF -DRANDTENSOR_BUILD_MPI=OFF &&
    cmake --build "$build" -j "$jobs" --target randtensor_objects && built=1
  if ! wait "$installing"; then
    cat "$build/install-deps.log"
    echo "test.sh: scripts/install-deps.sh test failed (above)" >&2
    exit 1
  fi
  echo "test.sh: scripts/install-deps.sh test done (its output: $build/install-deps.log)"
  [ "$built" = 1 ] || { echo "test.sh: the kernels did not build" >&2; exit 1; }
fi

# Debian's interpreter has python3-pytest; a pyenv or venv python3 earlier on
# PATH may not.
python=/usr/bin/python3
[ -x "$python" ] || python="$(command -v python3)"

# Every part ON: a missing dependency is a configure error, never a part
# silently skipped (scripts/install-deps.sh test installs them all).
if [ "$build_it" = 1 ]; then
  cmake -S . -B "$build" "${common[@]}" -DPython3_EXECUTABLE="$python" \
    -DRANDTENSOR_BUILD_TOOLS=ON \
    -DRANDTENSOR_BUILD_TESTS=ON -DRANDTENSOR_BUILD_BENCHMARKS=ON \
    -DRANDTENSOR_BUILD_PYTHON=ON -DRANDTENSOR_BUILD_STATS=ON -DRANDTENSOR_BUILD_MPI=ON \
    -DRANDTENSOR_BUILD_TORCH_BACKEND=ON
  cmake --build "$build" -j "$jobs"
fi
# Optional Python engines (dask, torch) and valgrind are required here, not skipped.
RANDTENSOR_REQUIRE_DASK=1 RANDTENSOR_REQUIRE_TORCH=1 RANDTENSOR_REQUIRE_VALGRIND=1 ctest --test-dir "$build" --output-on-failure -j "$jobs" "${select[@]}"
