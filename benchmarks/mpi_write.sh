#!/usr/bin/env bash
# The MPI CLI against independent processes: `mpirun -np 2 randtensor generate`
# writing one shared file (each rank pwrite()s its slab), against two single-process
# runs started at once that fill the same two slabs (--offset) into two files
# in the same directory. Both write the same bytes (checked once), with the
# same threads per process (one per rank on a 2-core machine: --threads T),
# through the tool's temporary file, fsync and rename. Prints each run's
# wall time, rate (file bytes / wall seconds, GB/s) and the ratio
# MPI / independent, then the range of the ratios. The two ways alternate
# which goes first, each after the last run's files are removed and synced,
# so neither inherits the other's writeback. The independent runs are the
# same CLI, with the same per-chunk writeback (docs/mpi.md, Speed).
#
# Usage: benchmarks/mpi_write.sh [CLI] [DIR] [ROWS] [RUNS]
#   CLI   the randtensor binary built with -DRANDTENSOR_BUILD_MPI=ON
#         (default build/tools/randtensor)
#   DIR   where the files go (default: a new directory under /tmp); removed after
#   ROWS  rows of 2^20 float32 values, 4 MiB each (default 512: 2 GiB)
#   RUNS  repetitions (default 3)
# Environment: MPIEXEC (default mpirun), THREADS per process (default: cores / 2).
set -euo pipefail
cli="$(realpath "${1:-build/tools/randtensor}")"
dir="${2:-$(mktemp -d /tmp/randtensor-mpi-bench.XXXXXX)}"
rows="${3:-512}"
runs="${4:-3}"
cols=1048576
mpiexec="${MPIEXEC:-mpirun}"
threads="${THREADS:-$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))}"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

# Open MPI: P may exceed the cores; root (CI, containers) must be allowed.
launch=("$mpiexec" -np 2)
if "$mpiexec" --version 2>&1 | grep -q "Open MPI"; then
  launch+=(--oversubscribe)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
common=(--dist uniform --dtype float32 --seed 42 --threads "$threads" --quiet)
bytes=$(( rows * cols * 4 ))
half=$(( rows / 2 ))

now() { date +%s.%N; }
rate() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.3f", b / s / 1e9 }'; }

mpi_run() {
  "${launch[@]}" "$cli" generate --sizes "$rows,$cols" "${common[@]}" --out "$dir/mpi.bin" \
    > /dev/null
}
independent_run() {
  # Slab 0: rows [0, half); slab 1: rows [half, rows), from element half * cols.
  "$cli" generate --sizes "$half,$cols" "${common[@]}" --out "$dir/slab0.bin" > /dev/null &
  local first=$!
  "$cli" generate --sizes "$(( rows - half )),$cols" --offset $(( half * cols )) "${common[@]}" \
    --out "$dir/slab1.bin" > /dev/null
  wait "$first"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
     "$(df -h --output=source,fstype "$dir" | tail -1 | tr -s ' ')"
echo "tensor: $rows x $cols float32 ($(( bytes >> 20 )) MiB), $threads thread(s) per process," \
     "dir $dir"

# Once: both ways write the same bytes.
mpi_run
independent_run
cat "$dir/slab0.bin" "$dir/slab1.bin" | cmp - "$dir/mpi.bin"
echo "check: mpirun's file == the two slabs, byte for byte"

printf "%-4s %12s %12s %12s %12s %8s\n" run mpi_s mpi_GBps indep_s indep_GBps ratio
timed() {  # seconds that "$@" takes, after the last files are gone from the disk
  rm -f "$dir"/*.bin
  sync
  local t0 t1
  t0=$(now); "$@"; t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
ratios=()
for run in $(seq 1 "$runs"); do
  if (( run % 2 )); then
    mpi_s=$(timed mpi_run); indep_s=$(timed independent_run)
  else
    indep_s=$(timed independent_run); mpi_s=$(timed mpi_run)
  fi
  ratios+=("$(awk -v m="$mpi_s" -v i="$indep_s" 'BEGIN { printf "%.2f", i / m }')")
  printf "%-4s %12s %12s %12s %12s %8s\n" "$run" "$mpi_s" "$(rate "$mpi_s")" "$indep_s" \
    "$(rate "$indep_s")" "${ratios[-1]}"
done
printf "%s\n" "${ratios[@]}" | sort -n |
  awk '{ r[NR] = $1 } END { printf "ratio: %s to %s, median %s\n", r[1], r[NR], r[int((NR + 1) / 2)] }'
