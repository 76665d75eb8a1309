#!/usr/bin/env bash
# Source-line coverage of the library (src/) reached by a fuzz corpus.
#
#   fuzz/coverage.sh [corpus dir ...]     default: fuzz/corpus fuzz/corpus/regressions
#
# Builds the fuzzer once more with clang's source-based coverage instead of
# the sanitizers (build-fuzz-cov, -DRANDTENSOR_FUZZ_COVERAGE=ON), replays
# every input once, and prints llvm-cov's per-file report for src/.
# HTML: set HTML=dir to also write an HTML report there.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build-fuzz-cov}"
llvm_bin="${LLVM_BIN:-/usr/lib/llvm-14/bin}"
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  dirs=("$root/fuzz/corpus")
  [ -d "$root/fuzz/corpus/regressions" ] && dirs+=("$root/fuzz/corpus/regressions")
fi

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  CC="${CC:-clang-14}" CXX="${CXX:-clang++-14}" cmake -S "$root" -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release -DRANDTENSOR_BUILD_FUZZERS=ON -DRANDTENSOR_FUZZ_COVERAGE=ON \
    -DRANDTENSOR_BUILD_TESTS=OFF -DRANDTENSOR_BUILD_TOOLS=OFF -DRANDTENSOR_BUILD_BENCHMARKS=OFF \
    -DRANDTENSOR_BUILD_PYTHON=OFF -DRANDTENSOR_BUILD_STATS=OFF -DRANDTENSOR_BUILD_SHARED=OFF \
    -DRANDTENSOR_INSTALL=OFF >/dev/null
fi
cmake --build "$build_dir" --target randtensor_fuzz -j2 >/dev/null
bin="$build_dir/fuzz/randtensor_fuzz"

work="$(mktemp -d "${TMPDIR:-/tmp}/randtensor-cov.XXXXXX")"
trap 'rm -rf "$work"' EXIT
inputs=0
for d in "${dirs[@]}"; do
  for f in "$d"/*; do
    [ -f "$f" ] || continue
    inputs=$((inputs + 1))
  done
done
# -runs=0 replays the given directories once each, then exits.
LLVM_PROFILE_FILE="$work/cov.profraw" "$bin" -runs=0 "${dirs[@]}" >"$work/replay.log" 2>&1
"$llvm_bin/llvm-profdata" merge -sparse "$work/cov.profraw" -o "$work/cov.profdata"
echo "coverage of src/ over $inputs inputs from: ${dirs[*]}"
"$llvm_bin/llvm-cov" report "$bin" -instr-profile="$work/cov.profdata" "$root/src"
if [ -n "${HTML:-}" ]; then
  "$llvm_bin/llvm-cov" show "$bin" -instr-profile="$work/cov.profdata" -format=html \
    -output-dir="$HTML" "$root/src"
  echo "HTML report in $HTML"
fi
