#!/usr/bin/env bash
# Builds randtensor with every test enabled and runs the whole suite.
# Needs what scripts/install-deps.sh test installs (or --install-deps).
# Usage: scripts/test.sh [--install-deps] [--all-targets] [--long|--long-only]
#                        [build-dir]               (default: build-test)
#   --install-deps  first install what it needs (scripts/install-deps.sh:
#                the build packages and the test programs' few, then the
#                other test packages in the background while the library,
#                the test programs and the benchmarks compile, with
#                --unsafe-io: dpkg's fsyncs are most of an install's time
#                beside a compile).
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
select=(-LE long) build_it=1 all_targets=0 install_deps=0
while [ $# -gt 0 ]; do
  case "$1" in
    --install-deps) install_deps=1 ;;
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
# (RANDTENSOR_DISABLED_TARGETS), as AVX3 is the costliest target to
# compile, unless --all-targets. The library a user builds (CMake's
# defaults, pip) has them all (every target but SSSE3: CMakeLists.txt).
disabled_targets=""
if [ "$all_targets" = 0 ] && [ "$(uname -m)" = x86_64 ] && ! cpu_runs_avx3; then
  disabled_targets="AVX3"
fi

# What the library's objects are compiled with: the same in both configures
# below, so that the second keeps the first one's objects. Warnings are errors
# here (RANDTENSOR_WERROR: randtensor's own targets only).
library_options=(-DCMAKE_BUILD_TYPE=Release -DRANDTENSOR_DISABLED_TARGETS="$disabled_targets"
                 -DRANDTENSOR_KERNEL_FLAGS= -DRANDTENSOR_WERROR=ON)
# The parts beside the library: parts PART...: ON for each part named, OFF
# for the others.
all_parts=(TOOLS TESTS BENCHMARKS PYTHON STATS MPI TORCH_BACKEND)
parts() {
  local part
  for part in "${all_parts[@]}"; do
    if [[ " $* " == *" $part "* ]]; then
      printf '%s\n' "-DRANDTENSOR_BUILD_$part=ON"
    else
      printf '%s\n' "-DRANDTENSOR_BUILD_$part=OFF"
    fi
  done
}

# Debian's interpreter has python3-pytest; a pyenv or venv python3 earlier on
# PATH may not.
python=/usr/bin/python3

if [ "$install_deps" = 1 ] && [ "$build_it" = 0 ]; then
  scripts/install-deps.sh test
elif [ "$install_deps" = 1 ]; then
  # The build packages and the test programs' few in the foreground (a
  # sudo prompt comes here), then the other test packages beside the
  # compile of the library, the test programs and the benchmarks, which
  # need only those: a configure with the TESTS and BENCHMARKS parts ON,
  # the others OFF. That is most of the build's compile (the kernels, the
  # test programs); the install beside it takes as long.
  scripts/install-deps.sh test-programs
  install_log="$(mktemp)"
  scripts/install-deps.sh test --unsafe-io > "$install_log" 2>&1 < /dev/null &
  installing=$!
  # Never leave dpkg running: on a failed compile, wait for the install.
  trap 'wait "$installing" 2> /dev/null || true' EXIT
  mapfile -t programs < <(parts TESTS BENCHMARKS)
  cmake -S . -B "$build" "${library_options[@]}" "${programs[@]}" -DPython3_EXECUTABLE="$python"
  cmake --build "$build" -j "$jobs"
  install_rc=0
  wait "$installing" || install_rc=$?
  trap - EXIT
  cat "$install_log"
  rm -f "$install_log"
  if [ "$install_rc" != 0 ]; then
    echo "test.sh: scripts/install-deps.sh test failed (exit status $install_rc)" >&2
    exit "$install_rc"
  fi
fi

# (Another interpreter only where Debian's is missing, once the packages are
# installed.)
[ -x "$python" ] || python="$(command -v python3 || echo python3)"

# Every part ON: a missing dependency is a configure error, never a part
# silently skipped (scripts/install-deps.sh test installs them all).
if [ "$build_it" = 1 ]; then
  mapfile -t on < <(parts "${all_parts[@]}")
  cmake -S . -B "$build" "${library_options[@]}" "${on[@]}" -DPython3_EXECUTABLE="$python"
  cmake --build "$build" -j "$jobs"
fi
# Optional Python engines (dask, torch) and valgrind are required here, not
# skipped. One test more than the cores: the MPI test's processes spend most
# of their time waiting on mpirun's start-up.
RANDTENSOR_REQUIRE_DASK=1 RANDTENSOR_REQUIRE_TORCH=1 RANDTENSOR_REQUIRE_VALGRIND=1 \
  ctest --test-dir "$build" --output-on-failure -j "$((jobs + 1))" "${select[@]}"
