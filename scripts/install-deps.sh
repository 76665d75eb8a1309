#!/usr/bin/env bash
# Installs every Debian package randtensor's build, tests, benchmarks and
# trust tooling need. The one list of dependencies: README and CI call it.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

packages=(
  build-essential cmake pkg-config   # C++17 toolchain (g++ 12 on bookworm) and CMake 3.25
  libhwy-dev                         # Google Highway 1.0.3: SIMD and runtime dispatch
  libgtest-dev                       # tests
  libbenchmark-dev                   # benchmarks
  librandom123-dev                   # Random123: the independent Philox reference in tests
  libdlpack-dev                      # dlpack.h: the DLPack entry point
  python3 python3-pytest             # the CLI's contract tests and the Python tests
  python3-dev python3-numpy pybind11-dev   # the Python module
  clang libclang-rt-14-dev           # libFuzzer and the sanitizer runtimes (fuzz/)
  libtestu01-0-dev                   # TestU01's batteries (stats/); Debian non-free
)

# TestU01 is in Debian's non-free component, which a stock sources list may
# not enable: add it for this release if no source offers the package yet.
$SUDO apt-get update
if ! apt-cache show libtestu01-0-dev > /dev/null 2>&1; then
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
  printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" "Suites: $codename" \
    "Components: non-free" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
    $SUDO tee /etc/apt/sources.list.d/randtensor-non-free.sources > /dev/null
  $SUDO apt-get update
fi
$SUDO apt-get install -y --no-install-recommends "${packages[@]}"
