#!/usr/bin/env bash
# Builds randtensor with every test enabled and runs the whole suite.
# Needs what scripts/install-deps.sh test installs (or --install-deps).
# Usage: scripts/test.sh [--install-deps] [--all-targets] [--long|--long-only]
#                        [build-dir]               (default: build-test)
#   --install-deps  first install what it needs (scripts/install-deps.sh):
#                the build packages in the foreground where any is
#                missing, then the test programs' few and the other test
#                packages in the background while the library, the test
#                programs and the benchmarks compile, with --unsafe-io:
#                dpkg's fsyncs are most of an install's time beside a
#                compile.
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
  # The build packages in the foreground (a sudo prompt comes here), where
  # any is missing; then the test packages in the background, the test
  # programs' few first, beside the compile: the library (a configure with
  # every part OFF) from the first second, then, once those few are in,
  # the test programs and the benchmarks (TESTS and BENCHMARKS ON), which
  # need only them. That is most of the build's compile (the kernels, the
  # test programs); the install beside it takes as long. A foreground
  # install of the test programs' packages left a core idle for its 15 s.
  scripts/install-deps.sh build --if-missing
  # sudo's credentials now, so that the background installs never prompt.
  if [ "$(id -u)" -ne 0 ]; then sudo -v; fi
  install_log="$(mktemp)"
  programs_ready="$install_log.programs"
  { scripts/install-deps.sh test-programs --unsafe-io && touch "$programs_ready" &&
      scripts/install-deps.sh test --unsafe-io; } > "$install_log" 2>&1 < /dev/null &
  installing=$!
  # Never leave dpkg running: on a failed compile, wait for the install.
  trap 'wait "$installing" 2> /dev/null || true' EXIT
  # Waits for the install and prints its log; stops the script if it failed.
  finish_install() {
    local rc=0
    wait "$installing" || rc=$?
    trap - EXIT
    cat "$install_log"
    rm -f "$install_log" "$programs_ready"
    if [ "$rc" != 0 ]; then
      echo "test.sh: scripts/install-deps.sh failed (exit status $rc)" >&2
      exit "$rc"
    fi
  }
  # The install is this phase's longest path (dpkg works on one core,
  # after the downloads), the compile has slack: the compile yields
  # (nice), so that the install never waits on it and the compile takes
  # the cores whole once the install is done, instead of the install's
  # end leaving a core idle.
  mapfile -t library < <(parts)
  cmake -S . -B "$build" "${library_options[@]}" "${library[@]}" -DPython3_EXECUTABLE="$python"
  nice -n 10 cmake --build "$build" -j "$jobs"
  # The test programs' packages in, or the install ended without them.
  while [ ! -e "$programs_ready" ] && kill -0 "$installing" 2> /dev/null; do sleep 1; done
  [ -e "$programs_ready" ] || finish_install
  mapfile -t programs < <(parts TESTS BENCHMARKS)
  cmake -S . -B "$build" "${library_options[@]}" "${programs[@]}" -DPython3_EXECUTABLE="$python"
  nice -n 10 cmake --build "$build" -j "$jobs"
  finish_install
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
