#!/bin/bash
# Device call 13 (third session): normal float32/float16 against bits, the
# division-free root (new, 02b6908) against dbb85ce (old), the library swapped
# under one benchmark binary, rounds interleaved; 1 thread pinned to vCPU 2,
# and 16 threads at 64 Mi.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
for r in 1 2 3 4 5; do
  for b in old new; do
    LD_LIBRARY_PATH=$D/n13/$b:$D/libs taskset -c 2 $D/n13/randtensor_bench \
      --benchmark_filter='^dist/AVX3/(bits|normal-float32|normal-float16)/64Ki/threads:1/' \
      --benchmark_min_time=0.3 --benchmark_format=json > $OUT/r$r-$b-1t.json 2>/dev/null
    LD_LIBRARY_PATH=$D/n13/$b:$D/libs $D/n13/randtensor_bench \
      --benchmark_filter='^dist/AVX3/(bits|normal-float32|normal-float16)/65536Ki/threads:16/' \
      --benchmark_min_time=0.3 --benchmark_format=json > $OUT/r$r-$b-16t.json 2>/dev/null
    python3 - "$b" $OUT/r$r-$b-1t.json $OUT/r$r-$b-16t.json <<'PY'
import json, sys
out = [sys.argv[1]]
for f in sys.argv[2:]:
    for x in json.load(open(f))["benchmarks"]:
        if "normal" in x["name"]:
            out.append("%s %.3f" % (x["name"].split("/")[2] + "/" + x["name"].split("/")[4], x["vs_bits"]))
print("  ".join(out))
PY
  done
done
uptime
