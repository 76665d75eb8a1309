#!/usr/bin/env bash
# The MPI CLI against independent processes: `mpirun -np P randtensor generate`
# writing one shared file (each rank pwrite()s its slab), against P single-process
# runs started at once that fill P slabs (--offset) into P files
# in the same directory. Both write the same bytes (checked once), with the
# same threads per process (cores / P by default: --threads T),
# through the tool's temporary file, fsync and rename. Prints each run's
# wall time, rate (file bytes / wall seconds, GB/s) and the ratio
# MPI / independent, then the range of the ratios; also, measured in the
# same run, what `mpirun -np P true` takes (the launcher's own start-up,
# 0.05 s on the 2-core VM, 0.35-0.45 s on the 16-core one) and the ratio
# with that left out of the MPI time. The two ways alternate
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
# Environment: MPIEXEC (default mpirun), RANKS = P (default 2), THREADS per
# process (default: cores / P, at least 1).
set -euo pipefail
cli="$(realpath "${1:-build/tools/randtensor}")"
dir="${2:-$(mktemp -d /tmp/randtensor-mpi-bench.XXXXXX)}"
rows="${3:-512}"
runs="${4:-3}"
cols=1048576
mpiexec="${MPIEXEC:-mpirun}"
ranks="${RANKS:-2}"
threads="${THREADS:-$(( $(nproc) / ranks > 0 ? $(nproc) / ranks : 1 ))}"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

# Open MPI: P may exceed the cores; root (CI, containers) must be allowed.
launch=("$mpiexec" -np "$ranks")
if "$mpiexec" --version 2>&1 | grep -q "Open MPI"; then
  launch+=(--oversubscribe)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
common=(--dist uniform --dtype float32 --seed 42 --threads "$threads" --quiet)
bytes=$(( rows * cols * 4 ))

now() { date +%s.%N; }
rate() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.3f", b / s / 1e9 }'; }

mpi_run() {
  "${launch[@]}" "$cli" generate --sizes "$rows,$cols" "${common[@]}" --out "$dir/mpi.bin" \
    > /dev/null
}
independent_run() {
  # Slab i: rows [i rows / P, (i + 1) rows / P), from element (i rows / P) * cols.
  local i first last pids=()
  for (( i = 0; i < ranks; i++ )); do
    first=$(( i * rows / ranks )); last=$(( (i + 1) * rows / ranks ))
    "$cli" generate --sizes "$(( last - first )),$cols" --offset $(( first * cols )) \
      "${common[@]}" --out "$dir/slab$i.bin" > /dev/null &
    pids+=($!)
  done
  wait "${pids[@]}"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
     "$(df -h --output=source,fstype "$dir" | tail -1 | tr -s ' ')"
echo "tensor: $rows x $cols float32 ($(( bytes >> 20 )) MiB), $ranks ranks," \
     "$threads thread(s) per process," \
     "dir $dir"

# Once: both ways write the same bytes.
mpi_run
independent_run
for (( i = 0; i < ranks; i++ )); do cat "$dir/slab$i.bin"; done | cmp - "$dir/mpi.bin"
echo "check: mpirun's file == the $ranks slabs, byte for byte"

printf "%-4s %12s %12s %12s %12s %8s %10s %8s\n" run mpi_s mpi_GBps indep_s indep_GBps ratio \
  launch_s ratio_cli
timed() {  # seconds that "$@" takes, after the last files are gone from the disk
  rm -f "$dir"/*.bin
  sync
  local t0 t1
  t0=$(now); "$@"; t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
ratios=()
cli_ratios=()
for run in $(seq 1 "$runs"); do
  if (( run % 2 )); then
    mpi_s=$(timed mpi_run); indep_s=$(timed independent_run)
  else
    indep_s=$(timed independent_run); mpi_s=$(timed mpi_run)
  fi
  # The launcher's own start-up and exit (`mpirun -np P true`), which any
  # MPI program pays: ratio_cli leaves it out of the MPI run's time.
  launch_s=$(timed "${launch[@]}" true)
  ratios+=("$(awk -v m="$mpi_s" -v i="$indep_s" 'BEGIN { printf "%.2f", i / m }')")
  cli_ratios+=("$(awk -v m="$mpi_s" -v i="$indep_s" -v l="$launch_s" \
                  'BEGIN { printf "%.2f", i / (m - l) }')")
  printf "%-4s %12s %12s %12s %12s %8s %10s %8s\n" "$run" "$mpi_s" "$(rate "$mpi_s")" \
    "$indep_s" "$(rate "$indep_s")" "${ratios[-1]}" "$launch_s" "${cli_ratios[-1]}"
done
range() {
  printf "%s\n" "${@:2}" | sort -n |
    awk -v what="$1" '{ r[NR] = $1 } END { printf "%s: %s to %s, median %s\n", what, r[1], r[NR], r[int((NR + 1) / 2)] }'
}
range ratio "${ratios[@]}"
range "ratio without the launcher's start-up" "${cli_ratios[@]}"
