#!/usr/bin/env bash
# Builds (if needed) and runs the randtensor libFuzzer target for a while.
#
#   fuzz/run.sh [options] [seconds]          default 60 seconds
#
# Options:
#   --binary PATH     use this fuzzer binary (skips the build)
#   --build-dir DIR   where to configure and build it (default: build-fuzz)
#   --workers N       parallel fuzzing processes (libFuzzer -fork=N; default 1)
#   --corpus DIR      also start from the inputs in DIR (repeatable; e.g. the
#                     corpus a previous --keep run left behind)
#   --keep            keep the work directory (corpus copy, logs) afterwards
#   --save-corpus     merge the new interesting inputs back into fuzz/corpus/
#                     (off by default: the repository's corpus stays as committed)
#   --make-corpus     regenerate fuzz/corpus/ with the seed generator and exit
#   --build-only      build the fuzzer and exit (CI builds it first, then
#                     fuzzes beside the sanitizer builds: .ci/run)
#   -- ARGS...        extra libFuzzer arguments
#
# The fuzzer runs over a copy of fuzz/corpus/ (and fuzz/corpus/regressions/)
# in a temporary directory. Exit status: 0 when no crash was found; otherwise
# 1, with the crashing input copied to fuzz-crash-* in the current directory
# (save a minimized one into fuzz/corpus/regressions/ as a regression seed:
#   ./build-fuzz/fuzz/randtensor_fuzz -minimize_crash=1 -runs=10000 crash-file).
# Environment: CC/CXX for the configure step (default clang-14/clang++-14).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
seconds=60
binary=""
build_dir="$root/build-fuzz"
workers=1
keep=0
save=0
make_corpus=0
build_only=0
more=()
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="$2"; shift 2;;
    --build-dir) build_dir="$2"; shift 2;;
    --workers) workers="$2"; shift 2;;
    --corpus) more+=("$2"); shift 2;;
    --keep) keep=1; shift;;
    --save-corpus) save=1; shift;;
    --make-corpus) make_corpus=1; shift;;
    --build-only) build_only=1; shift;;
    --) shift; extra=("$@"); break;;
    -h|--help) sed -n '2,25p' "$0"; exit 0;;
    *) seconds="$1"; shift;;
  esac
done

build() {  # target...
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    CC="${CC:-clang-14}" CXX="${CXX:-clang++-14}" cmake -S "$root" -B "$build_dir" \
      -DCMAKE_BUILD_TYPE=Release -DRANDTENSOR_BUILD_FUZZERS=ON \
      -DRANDTENSOR_BUILD_TESTS=OFF -DRANDTENSOR_BUILD_TOOLS=OFF -DRANDTENSOR_BUILD_BENCHMARKS=OFF \
      -DRANDTENSOR_BUILD_PYTHON=OFF -DRANDTENSOR_BUILD_STATS=OFF -DRANDTENSOR_BUILD_MPI=OFF \
      -DRANDTENSOR_BUILD_SHARED=OFF \
      -DRANDTENSOR_INSTALL=OFF >/dev/null
  fi
  cmake --build "$build_dir" --target "$@" -j2 >/dev/null
}

if [ "$make_corpus" = 1 ]; then
  build randtensor_fuzz_make_corpus
  "$build_dir/fuzz/randtensor_fuzz_make_corpus" "$root/fuzz/corpus"
  exit 0
fi
if [ -z "$binary" ]; then
  build randtensor_fuzz
  binary="$build_dir/fuzz/randtensor_fuzz"
fi
if [ "$build_only" = 1 ]; then
  echo "fuzz: built $binary"
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/randtensor-fuzz.XXXXXX")"
mkdir -p "$work/corpus" "$work/artifacts"
find "$root/fuzz/corpus" -type f ! -name '*.md' -exec cp {} "$work/corpus/" \;
for d in "${more[@]}"; do cp -r "$d"/. "$work/corpus/"; done
echo "fuzz: $binary for $seconds s, $workers worker(s), corpus copy in $work/corpus ($(ls "$work/corpus" | wc -l) seeds)"

args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=1024
      -print_final_stats=1 -artifact_prefix="$work/artifacts/")
if [ "$workers" -gt 1 ]; then args+=(-fork="$workers"); fi
rc=0
start=$SECONDS
"$binary" "${args[@]}" "${extra[@]}" "$work/corpus" >"$work/fuzz.log" 2>&1 || rc=$?
elapsed=$((SECONDS - start))

grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$work/fuzz.log" | tail -1 || true
grep -E '^stat::' "$work/fuzz.log" || true
echo "fuzz: exit status $rc after $elapsed s; corpus now $(ls "$work/corpus" | wc -l) inputs"

crashes=$(find "$work/artifacts" -type f | wc -l)
if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
  grep -E 'CHECK FAILED|ERROR: |SUMMARY:' "$work/fuzz.log" | head -20 || true
  for f in "$work"/artifacts/*; do
    [ -f "$f" ] || continue
    cp "$f" "./fuzz-$(basename "$f")"
    echo "fuzz: crashing input saved as ./fuzz-$(basename "$f")"
  done
  echo "fuzz: full log in $work/fuzz.log"
  exit 1
fi
if [ "$save" = 1 ]; then
  "$binary" -merge=1 "$root/fuzz/corpus" "$work/corpus" >/dev/null 2>&1
  echo "fuzz: merged new inputs into $root/fuzz/corpus"
fi
if [ "$keep" = 1 ]; then
  echo "fuzz: work directory kept: $work"
else
  rm -rf "$work"
fi
