#!/usr/bin/env bash
# Runs TestU01's long batteries over randtensor's output and keeps the logs.
#
#   stats/run_batteries.sh [battery ...]      batteries: smallcrush crush bigcrush
#                                             (default: crush bigcrush)
# Environment:
#   MODES="nhwc calls"   the stream modes to run each battery in (see
#                        stats/testu01_harness.cc)
#   SEED=20240601        the harness seed
#   BUILD_DIR=build-stats  where the harness is configured and built (if needed)
#   BIN=path             use this harness binary instead of building one (a
#                        machine without the sources' build tools)
#   SOURCE=text          the source revision to record (default: git's)
#   RESULTS=stats/results  where the logs go: <battery>-<mode>-seed<seed>-<date>.txt
#   NICE=19              niceness of the battery processes (the machine stays usable)
#   JOBS=1               how many battery runs at once (each is single-threaded,
#                        except the nhwc fills, which use 2 threads briefly)
#   SPLIT=1              run each test of a battery as its own process, JOBS at a
#                        time (for a many-core machine: BigCrush in minutes, not
#                        hours); every test then reads the stream from the seed's
#                        state. The log holds every test's output in TestU01's
#                        order and one merged summary line.
#
# Durations measured on a 2-core AMD EPYC (Zen 4) VM (docs/trust.md):
# SmallCrush ~7 s, Crush ~40-60 min, BigCrush several hours, per mode.
# Exit status: non-zero if any run reported a clear failure or an error.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
MODES="${MODES:-nhwc calls}"
SEED="${SEED:-20240601}"
BUILD_DIR="${BUILD_DIR:-build-stats}"
RESULTS="${RESULTS:-stats/results}"
NICE="${NICE:-19}"
JOBS="${JOBS:-1}"
batteries=("$@")
[ ${#batteries[@]} -gt 0 ] || batteries=(crush bigcrush)

for b in "${batteries[@]}"; do
  case "$b" in smallcrush|crush|bigcrush) ;; *) echo "unknown battery: $b" >&2; exit 2;; esac
done

if [ -n "${BIN:-}" ]; then
  bin="$BIN"
else
  if [ ! -x "$BUILD_DIR/stats/randtensor_testu01" ] || [ -n "${REBUILD:-}" ]; then
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
      -DRANDTENSOR_BUILD_STATS=ON -DRANDTENSOR_BUILD_TESTS=OFF -DRANDTENSOR_BUILD_TOOLS=OFF \
      -DRANDTENSOR_BUILD_BENCHMARKS=OFF -DRANDTENSOR_BUILD_PYTHON=OFF \
      -DRANDTENSOR_BUILD_SHARED=OFF -DRANDTENSOR_INSTALL=OFF >/dev/null
  fi
  cmake --build "$BUILD_DIR" --target randtensor_testu01 -j2 >/dev/null
  bin="$BUILD_DIR/stats/randtensor_testu01"
fi
if [ -z "${SOURCE:-}" ]; then
  SOURCE="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  git diff --quiet HEAD -- src include 2>/dev/null ||
    SOURCE="$SOURCE + uncommitted changes in src/ or include/"
fi
mkdir -p "$RESULTS"

run_one() {  # battery mode
  local battery="$1" mode="$2"
  local log="$RESULTS/${battery}-${mode}-seed${SEED}-$(date -u +%Y%m%dT%H%M%SZ).txt"
  {
    echo "# randtensor TestU01 run"
    echo "# date (UTC):  $(date -u '+%Y-%m-%d %H:%M:%S')"
    echo "# machine:     $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs"
    echo "# source:      $SOURCE"
    echo "# command:     nice -n $NICE $bin --battery $battery --mode $mode --seed $SEED"
    echo
  } >"$log"
  local start=$SECONDS rc=0
  nice -n "$NICE" "$bin" --battery "$battery" --mode "$mode" --seed "$SEED" >>"$log" 2>&1 || rc=$?
  echo "# exit status $rc after $((SECONDS - start)) s" >>"$log"
  echo "$(tail -2 "$log" | head -1)  [log: $log, exit $rc]"
  return $rc
}

battery_tests() {  # battery -> number of tests in TestU01's numbering
  case "$1" in smallcrush) echo 10;; crush) echo 96;; bigcrush) echo 106;; esac
}

run_split() {  # battery mode: one process per test, JOBS at a time, one merged log
  local battery="$1" mode="$2" n
  n="$(battery_tests "$battery")"
  local log="$RESULTS/${battery}-${mode}-seed${SEED}-split-$(date -u +%Y%m%dT%H%M%SZ).txt"
  local parts
  parts="$(mktemp -d)"
  {
    echo "# randtensor TestU01 run, one process per test ($JOBS at a time)"
    echo "# date (UTC):  $(date -u '+%Y-%m-%d %H:%M:%S')"
    echo "# machine:     $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs"
    echo "# source:      $SOURCE"
    echo "# command:     nice -n $NICE $bin --battery $battery --mode $mode --seed $SEED --tests T  (T = 1..$n)"
    echo
  } >"$log"
  local start=$SECONDS rc=0
  seq 1 "$n" | xargs -P "$JOBS" -I{} sh -c \
    'nice -n "$1" "$2" --battery "$3" --mode "$4" --seed "$5" --tests "$6" >"$7/$6.txt" 2>&1; echo "# exit status $?" >>"$7/$6.txt"' \
    _ "$NICE" "$bin" "$battery" "$mode" "$SEED" {} "$parts" || rc=1
  for t in $(seq 1 "$n"); do
    echo "######## test $t"
    cat "$parts/$t.txt" 2>/dev/null || echo "# missing"
  done >>"$log"
  # Merge the per-test summary lines ("<Battery> <mode>: K tests, min p = a, max
  # p = b, suspicious (...) = s, clear failures (...) = f; ...").
  awk -v b="$battery" -v m="$mode" -v n="$n" -v secs="$((SECONDS - start))" '
    / tests, min p = / {
      done++
      k = $0; sub(/^[^:]*: /, "", k); sub(/ tests.*/, "", k); tests += k
      x = $0; sub(/.*min p = /, "", x); sub(/,.*/, "", x); if (done == 1 || x + 0 < minp) minp = x + 0
      x = $0; sub(/.*max p = /, "", x); sub(/,.*/, "", x); if (done == 1 || x + 0 > maxp) maxp = x + 0
      x = $0; sub(/.*0.999\]\) = /, "", x); sub(/,.*/, "", x); susp += x
      x = $0; sub(/.*1 - 1e-10\]\) = /, "", x); sub(/;.*/, "", x); fail += x
    }
    /^# exit status [^0]/ { bad++ }
    END {
      printf "%s %s (split): %d of %d tests finished, %d statistics, min p = %g, max p = %g, " \
             "suspicious (outside [0.001, 0.999]) = %d, clear failures (outside [1e-10, 1 - 1e-10]) = %d, " \
             "runs with non-zero exit = %d; %d s\n", b, m, done, n, tests, minp, maxp, susp, fail, bad, secs
    }' "$parts"/*.txt >>"$log"
  grep -h "(suspicious)\|CLEAR FAILURE" "$parts"/*.txt >>"$log" || true
  grep -q "^# exit status [^0]" "$parts"/*.txt && rc=1
  rm -rf "$parts"
  echo "# exit status $rc after $((SECONDS - start)) s" >>"$log"
  grep "(split):" "$log"
  echo "  [log: $log, exit $rc]"
  return $rc
}

status=0
pids=()
for battery in "${batteries[@]}"; do
  for mode in $MODES; do
    if [ -n "${SPLIT:-}" ]; then
      run_split "$battery" "$mode" || status=1
    elif [ "$JOBS" -gt 1 ]; then
      while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || status=1; done
      run_one "$battery" "$mode" &
    else
      run_one "$battery" "$mode" || status=1
    fi
  done
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || status=1; done
exit $status
