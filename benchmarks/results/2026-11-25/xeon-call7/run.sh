#!/bin/bash
# Device call 7: the overhead/ benchmark rows (native Fill, 16 uint32
# elements, one thread) on every supported target, 3 runs, HEAD 8f2c421.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
R=/tmp/ompi; mkdir -p $R; for f in $D/../ompi/*.deb; do dpkg -x $f $R; done
export OPAL_PREFIX=$R/usr
export LD_LIBRARY_PATH=$D/new:$D/libs:$R/usr/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu/openmpi/lib
for r in 1 2 3; do
  $D/new/randtensor_bench --benchmark_filter='^overhead/' --benchmark_min_time=0.3 2>/dev/null | grep overhead
done | tee $OUT/overhead.txt
