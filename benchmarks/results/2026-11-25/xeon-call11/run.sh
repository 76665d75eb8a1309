#!/bin/bash
# Device call 11: AVX2 with 5 interleaved vectors (b5) against 6 (b6, the
# code at 963f060), 256 KiB, one thread pinned to vCPU 2, fill and its floor
# kernel in one process, 6 interleaved rounds; same benchmark binary, the
# library swapped by LD_LIBRARY_PATH.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
. "$D/../../benchmarks/carried_openmpi.sh"
for r in 1 2 3 4 5 6; do for v in b6 b5; do
  echo "$v $(LD_LIBRARY_PATH=$D/$v:$D/libs:$OMPILIB taskset -c 2 $D/new/randtensor_bench --benchmark_filter='^(fill/AVX2/packed/256KiB/threads:1|ceiling/reference-avx2/256KiB/threads:1)/' --benchmark_min_time=0.3 --benchmark_format=csv 2>/dev/null | grep -E '^"(fill|ceil)' | awk -F, '{printf "%.2f ", $6/1e9}')"
done; done | tee $OUT/avx2-batches.txt
