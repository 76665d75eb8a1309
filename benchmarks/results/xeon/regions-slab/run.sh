#!/bin/bash
# Device call 2: where the MPI CLI's time goes (launcher, MPI_Init/Finalize,
# the write) at P = 2 and 16, and the ratio at 8 GiB; regions after RunTail.
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/carried_openmpi.sh"  # Open MPI relocated, lib()
export PMIX_MCA_pcompress=^zlib
export LD_LIBRARY_PATH=$D/new:$D/libs:$OMPILIB
M="$R/usr/bin/orterun --oversubscribe"
t() { local s=$(date +%s.%N); "$@" > /dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc; }
for P in 2 16; do
  for r in 1 2 3; do
    echo "P=$P true: $(t $M -np $P true)  cli16: $(t $M -np $P $D/new/randtensor generate --sizes 16 --quiet)  single16: $(t $D/new/randtensor generate --sizes 16 --quiet)"
  done
done
for r in 1 2 3; do
  LD_LIBRARY_PATH=$D/new:$D/libs:$OMPILIB RANDTENSOR_BENCH_THREADS=1,16 $D/new/randtensor_bench --benchmark_filter='^region/' --benchmark_min_time=0.3 2>/dev/null | grep region | awk '{print $1, $NF}'
done
for P in 2 16; do
  echo "== P=$P, 8 GiB"
  MPIEXEC=$R/usr/bin/orterun RANKS=$P bash $D/../../benchmarks/mpi_write.sh $D/new/randtensor /tmp/mpibench 2048 2 2>&1 | grep -E "^[0-9]|ratio|check"
done
uptime
