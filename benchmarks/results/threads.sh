#!/bin/bash
# Rate against thread count beside the memory ceiling: packed 1 GiB fills
# (AVX3), the streaming fill and the floor kernel with streaming stores, on
# each thread count, 3 runs. Run from a folder holding randtensor_bench and
# its shared libraries, with OUT set; writes $OUT/$HOST-threads-N.json.
# Xeon: HOST=xeon THREADS=1,2,4,8,16 (the default); VM: HOST=vm THREADS=1,2.
D=$(cd "$(dirname "$0")" && pwd)
HOST=${HOST:-xeon}
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core"; uptime
for r in 1 2 3; do
  RANDTENSOR_BENCH_THREADS=${THREADS:-1,2,4,8,16} LD_LIBRARY_PATH=$D "$D/randtensor_bench" \
    --benchmark_filter='^(fill/AVX3/packed/1GiB|ceiling/stream/1GiB|ceiling/reference-stream/1GiB)/' \
    --benchmark_min_time=0.3 --benchmark_format=json > "$OUT/$HOST-threads-$r.json"
  echo "run $r done"
done
uptime
