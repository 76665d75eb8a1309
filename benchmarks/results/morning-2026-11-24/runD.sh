#!/bin/bash
# Device call D: distributions (AVX3, and AVX2 at 64 Ki), HEAD (.) against 1d474d8's (base/),
# interleaved, 3 runs each; then the 16-element call.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
F='^dist/(AVX3/.*/(64Ki/threads:1|65536Ki/threads:16)|AVX2/.*/64Ki/threads:1)/'
for r in 1 2 3; do
  for v in new base; do
    if [ $v = new ]; then L=$D; else L=$D/base; fi
    LD_LIBRARY_PATH=$L:$D $L/randtensor_bench --benchmark_filter="$F" --benchmark_min_time=0.2 --benchmark_format=json > $OUT/dist-$v-$r.json 2>/dev/null
  done
done
for r in 1 2 3; do for v in new base; do
  if [ $v = new ]; then L=$D; else L=$D/base; fi
  for d in bits uniform; do
    echo "$v $d $(LD_LIBRARY_PATH=$L:$D $L/randtensor generate --sizes 16 --threads 1 --dist $d --repeat 1000000 2>&1 | grep Gelem)"
  done
done; done | tee $OUT/call16.txt
uptime
