# Sourced by run-uniform.sh and run-normal.sh (their first argument: BUILD,
# a build of the current tree with benchmarks, tools and the Python module,
# such as scripts/test.sh's build-test). Sets here, repo, build and scratch
# (a temporary folder with a worktree of HEAD, both removed on exit), and:
#   patched_build PATCH DIR TARGET...: HEAD plus PATCH (a file beside this
#     one) built into DIR, Release, only TARGET...;
#   header: the CPU, the date and the commit, as a comment line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
build=$(cd "${1:?build directory}" && pwd)
scratch=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
git -C "$repo" worktree add --detach "$scratch/tree" HEAD >/dev/null 2>&1

patched_build() {
  local patch=$1 dir=$2
  shift 2
  git -C "$scratch/tree" checkout -q -- src
  git -C "$scratch/tree" apply "$here/$patch"
  cmake -S "$scratch/tree" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRANDTENSOR_BUILD_TESTS=OFF \
    -DRANDTENSOR_BUILD_MPI=OFF -DRANDTENSOR_BUILD_STATS=OFF -DRANDTENSOR_BUILD_PYTHON=ON \
    -DRANDTENSOR_BUILD_BENCHMARKS=OFF -DRANDTENSOR_WERROR=OFF \
    -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
  make -C "$dir" -j"$(nproc)" "$@" >/dev/null
}

header() {
  echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%F)," \
    "commit $(git -C "$repo" rev-parse --short HEAD)"
}
