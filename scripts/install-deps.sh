#!/usr/bin/env bash
# Installs every Debian package randtensor's build, tests and benchmarks need.
# The one list of dependencies: README and CI both call this script.
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
)

$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${packages[@]}"
