#!/bin/bash
# Device call 4: distributions, HEAD (new/) against 4187065 (base/), 3
# interleaved runs; the MPI CLI at 2 GiB with the launcher's start-up
# measured alongside; 16-element calls again.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
. "$D/../../benchmarks/carried_openmpi.sh"  # Open MPI relocated, lib()
F='^dist/(AVX3/.*/(64Ki/threads:1|65536Ki/threads:16)|AVX2/.*/64Ki/threads:1)/'
for r in 1 2 3; do for v in new base; do
  LD_LIBRARY_PATH=$(lib $v) $D/$v/randtensor_bench --benchmark_filter="$F" --benchmark_min_time=0.2 --benchmark_format=json > $OUT/dist-$v-$r.json 2>/dev/null
done; done
export LD_LIBRARY_PATH=$(lib new)
for P in 2 16; do
  echo "== P=$P"
  MPIEXEC=$R/usr/bin/orterun RANKS=$P bash $D/../../benchmarks/mpi_write.sh $D/new/randtensor /tmp/mpibench 512 3 2>&1 | grep -E "^[0-9]|ratio|run "
done | tee $OUT/mpi2g.txt
for r in 1 2 3 4 5; do for v in new base; do for d in bits uniform; do
  echo "$v AVX3 $d $(LD_LIBRARY_PATH=$(lib $v) $D/$v/randtensor generate --sizes 16 --threads 1 --dist $d --repeat 1000000 2>&1 | grep Gelem)"
done; done; done > $OUT/call16.txt
uptime
