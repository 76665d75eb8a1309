#!/usr/bin/env bash
# Installs the Debian packages a randtensor job needs. The one list of
# dependencies: the README, CI and scripts/check-install-deps.sh call it.
#
#   scripts/install-deps.sh [build|test-programs|test|ci|arm64] [--unsafe-io] [--if-missing]
#                           [--simulate] [--list]
#
#   build (default)  build the library and the command-line tool, run the main job
#   test-programs    + what the compiled test programs and the benchmarks need
#                      (GoogleTest, Google Benchmark, Random123) and the
#                      interpreter and pytest, which the tests' configure
#                      looks for: a few small packages, which scripts/test.sh
#                      --install-deps installs before the others, so that it
#                      compiles the programs beside the rest of the install
#   test             + everything scripts/test.sh needs: the test programs'
#                      packages, Python with pytest, NumPy, pybind11,
#                      dask, mpi4py and PyTorch (CPU),
#                      TestU01 (Debian non-free: its source is added if no
#                      configured source offers the package)
#   ci               + clang and its sanitizer runtimes (scripts/sanitize.sh, fuzz/),
#                      ccache (.ci/run)
#   arm64            build + the Arm cross build and its emulated tests
#                      (scripts/arm64-test.sh): Debian's aarch64 cross compiler,
#                      qemu-user-static, and arm64 Highway and GoogleTest from
#                      the arm64 architecture, which it adds to dpkg
#                      (dpkg --add-architecture arm64)
#   bench            the same as test (kept for old callers: the PyTorch it
#                      added is in test now, for randtensor.torch's tests)
#   --unsafe-io      dpkg --force-unsafe-io: no fsync of each unpacked file.
#                      Beside a compile the fsyncs more than double the
#                      install's time on a 2-vCPU VM; the cost is that a
#                      crash mid-install can leave files empty (apt-get
#                      install --reinstall repairs them). scripts/test.sh
#                      --install-deps uses it (its install runs beside a
#                      compile and the build waits for it); CI's installs
#                      end before the cross build beside them, and keep
#                      dpkg's safe I/O.
#   --if-missing     do nothing (not even apt-get update) where every package
#                      of the job is installed already: scripts/test.sh
#                      --install-deps asks for the build packages so, in
#                      the foreground, after the README's first command
#   --simulate       resolve everything (apt-get install -s) without installing
#   --list           print the packages of the job and exit
#
# It honours APT_CONFIG, so it can be run against an apt configuration of its
# own (scripts/check-install-deps.sh does, with stock sources only). Uses sudo
# when not run as root.
set -euo pipefail

job=build simulate=0 list=0 if_missing=0 dpkg_options=()
for arg in "$@"; do
  case "$arg" in
    build|test-programs|test|ci|bench|arm64) job="$arg" ;;
    --unsafe-io) dpkg_options=(-o Dpkg::Options::=--force-unsafe-io) ;;
    --if-missing) if_missing=1 ;;
    --simulate) simulate=1 ;;
    --list) list=1 ;;
    *) echo "install-deps.sh: unknown argument '$arg' (build, test-programs, test, ci, bench, arm64, --unsafe-io, --if-missing, --simulate, --list)" >&2
       exit 2 ;;
  esac
done

build_packages=(
  build-essential cmake pkg-config   # C++17 toolchain (g++ 12 on bookworm) and CMake 3.25
  libhwy-dev                         # Google Highway 1.0.3: SIMD and runtime dispatch
  libdlpack-dev                      # dlpack.h: the public DLPack entry point includes it
)
test_program_packages=(
  libgtest-dev                       # tests
  libbenchmark-dev                   # benchmarks (and their smoke test)
  librandom123-dev                   # Random123: the independent Philox reference in tests
  python3 python3-pytest             # the scripted tests: the CLI's contract tests, the Python
                                     # tests (the tests' configure looks for both)
)
test_packages=(
  python3-pip python3-setuptools python3-wheel   # pip install . (tests/python_package_test.sh)
  python3-mpmath                     # tests/reference: exact normals for the distributions model
  python3-dev python3-numpy pybind11-dev   # the Python module
  libtestu01-0-dev                   # TestU01's SmallCrush in the suite (stats/); Debian non-free
  python3-dask python3-distributed   # randtensor.dask and its LocalCluster tests
  libopenmpi-dev openmpi-bin python3-mpi4py   # the MPI CLI, its examples and tests
  python3-torch                      # PyTorch CPU: randtensor.torch and its tests; benchmarks/compare_*.py
  libtorch-dev                       # building randtensor.torch's backend (python/torch_backend)
  valgrind                           # its virtual CPU has no AVX-512: tests/no_avx512_cpu_test.py
)
bench_packages=()                    # (PyTorch moved to test: randtensor.torch's tests need it)
ci_packages=(
  clang libclang-rt-14-dev           # libFuzzer and the sanitizer runtimes (fuzz/, sanitize.sh)
  ccache                             # CI: pip's build from scratch reuses test.sh's compiles (.ci/run)
)
arm64_packages=(
  g++-aarch64-linux-gnu              # the cross compiler (cmake/aarch64-linux-gnu.cmake)
  qemu-user-static                   # runs the Arm tests: NEON, SVE, SVE2 at any vector length
  libhwy-dev:arm64 libgtest-dev:arm64   # the arm64 libraries the build links
  librandom123-dev                   # the tests' reference (headers, any architecture)
  python3                            # lists the test programs (ctest's JSON) in arm64-test.sh
)
# Packages outside Debian's main component, and the component that has them.
declare -A component=([libtestu01-0-dev]=non-free)

packages=("${build_packages[@]}")
[ "$job" = build ] || packages+=("${test_program_packages[@]}")
[ "$job" = build ] || [ "$job" = test-programs ] || packages+=("${test_packages[@]}")
[ "$job" = ci ] && packages+=("${ci_packages[@]}")
[ "$job" = bench ] && packages+=("${bench_packages[@]}")
[ "$job" = arm64 ] && packages=("${build_packages[@]}" "${arm64_packages[@]}")
if [ "$list" = 1 ]; then printf '%s\n' "${packages[@]}"; exit 0; fi

# Whether every package named is installed (dpkg's status "ii"), a name
# without an architecture meaning the machine's own (libhwy-dev may be
# installed for arm64 alone); dpkg-query fails for a package it has never
# heard of.
all_installed() {
  local status
  status="$(dpkg-query -W -f='${binary:Package} ${db:Status-Abbrev}\n' "$@" 2> /dev/null)" ||
    return 1
  awk -v wanted="$*" -v native="$(dpkg --print-architecture)" '
    $2 == "ii" { ok[$1] = 1 }
    END {
      n = split(wanted, w, " ")
      for (i = 1; i <= n; i++) if (!(w[i] in ok) && !((w[i] ":" native) in ok)) exit 1
    }' <<< "$status"
}
if [ "$if_missing" = 1 ] && [ "$simulate" = 0 ] && all_installed "${packages[@]}"; then
  echo "install-deps.sh: $job: all ${#packages[@]} packages are installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# The packages among "$@" that no configured source offers for installation,
# one per line. `apt-cache show` is no such test: it succeeds for a package
# that is only referred to (or only installed), which is how a missing
# non-free source went unnoticed. One apt-cache call for all of them: each
# call reads every package list, a second or more of CPU time.
without_candidate() {
  apt-cache "${apt_arch[@]}" policy "$@" 2>/dev/null |
    awk -v wanted="$*" '
      /^[^ ].*:$/ { name = substr($0, 1, length($0) - 1) }
      $1 == "Candidate:" && $2 != "(none)" { offered[name] = 1 }
      END { n = split(wanted, w, " "); for (i = 1; i <= n; i++) if (!(w[i] in offered)) print w[i] }'
}

# arm64 packages come from the arm64 architecture's package lists. --simulate
# changes nothing on the machine: it asks apt for arm64 lists itself.
apt_arch=()
if [ "$job" = arm64 ]; then
  if [ "$simulate" = 1 ]; then
    apt_arch=(-o "APT::Architectures::=$(dpkg --print-architecture)" -o APT::Architectures::=arm64)
  elif ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
  fi
fi

$SUDO apt-get "${apt_arch[@]}" update -qq
# Add the component of any package no source offers yet (a stock bookworm
# has main only), as a source list of its own in apt's configured folder.
added=()
mapfile -t missing < <(without_candidate "${packages[@]}")
for pkg in "${missing[@]}"; do
  comp="${component[$pkg]:-}"
  [ -n "$comp" ] || continue
  eval "$(apt-config shell parts_dir Dir::Etc::sourceparts/d)"
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
  file="${parts_dir}randtensor-${comp}.sources"
  echo "install-deps.sh: $pkg needs Debian's $comp component; adding $file"
  printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" "Suites: $codename" \
    "Components: $comp" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
    $SUDO tee "$file" > /dev/null
  added+=("$comp")
done
if [ ${#added[@]} -gt 0 ]; then
  $SUDO apt-get "${apt_arch[@]}" update -qq
  mapfile -t missing < <(without_candidate "${packages[@]}")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps.sh: no configured apt source offers: ${missing[*]}" >&2
  exit 1
fi

if [ "$simulate" = 1 ]; then
  $SUDO apt-get "${apt_arch[@]}" install -s -y --no-install-recommends "${packages[@]}" > /dev/null
  echo "install-deps.sh: $job: all ${#packages[@]} packages resolve (simulated)"
else
  $SUDO apt-get "${dpkg_options[@]}" install -y -qq --no-install-recommends "${packages[@]}"
fi
