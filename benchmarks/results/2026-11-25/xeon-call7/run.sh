#!/bin/bash
# Device call 7: the overhead/ benchmark rows (native Fill, 16 uint32
# elements, one thread) on every supported target, 3 runs, HEAD 8f2c421.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
. "$D/../../benchmarks/carried_openmpi.sh"  # Open MPI relocated, lib()
export LD_LIBRARY_PATH=$(lib new)
for r in 1 2 3; do
  $D/new/randtensor_bench --benchmark_filter='^overhead/' --benchmark_min_time=0.3 2>/dev/null | grep overhead
done | tee $OUT/overhead.txt
