#!/bin/bash
# Device call 17 (2026-11-26): this stop's code (86be741, "new") against the
# session's start (b23610e, "old"), the library swapped under one benchmark
# binary, rounds interleaved: normal float32/float16/float64 at 64 Ki on 1
# thread pinned to vCPU 2 (AVX3, AVX2) and at 64 Mi on 16 threads (AVX3);
# then every kind at 86be741, 3 rounds.
cd "$(dirname "$0")"; D=$PWD; mkdir -p /tmp/j
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
for r in 1 2 3 4 5; do
  for b in old new; do
    LD_LIBRARY_PATH=$D/$b:$D/libs taskset -c 2 $D/randtensor_bench \
      --benchmark_filter='^dist/(AVX3|AVX2)/(bits|normal-float32|normal-float16|normal-float64)/64Ki/threads:1/' \
      --benchmark_min_time=0.3 --benchmark_format=json > /tmp/j/r$r-$b-1t.json 2>/dev/null
    LD_LIBRARY_PATH=$D/$b:$D/libs $D/randtensor_bench \
      --benchmark_filter='^dist/AVX3/(bits|normal-float32|normal-float64)/65536Ki/threads:16/' \
      --benchmark_min_time=0.3 --benchmark_format=json > /tmp/j/r$r-$b-16t.json 2>/dev/null
    python3 - "$b" /tmp/j/r$r-$b-1t.json /tmp/j/r$r-$b-16t.json <<'PY'
import json, sys
out = [sys.argv[1]]
for f in sys.argv[2:]:
    for x in json.load(open(f))["benchmarks"]:
        if "normal" in x["name"]:
            n = x["name"].split("/")
            out.append("%s/%s/%s %.3f" % (n[1], n[2].replace("normal-", "n-"), n[4], x["vs_bits"]))
print("  ".join(out))
PY
  done
done
for r in 1 2 3; do
  LD_LIBRARY_PATH=$D/new:$D/libs taskset -c 2 $D/randtensor_bench \
    --benchmark_filter='^dist/AVX3/[^/]*/64Ki/threads:1/' --benchmark_min_time=0.2 \
    --benchmark_format=json > /tmp/j/all-r$r-1t.json 2>/dev/null
  LD_LIBRARY_PATH=$D/new:$D/libs $D/randtensor_bench \
    --benchmark_filter='^dist/AVX3/[^/]*/65536Ki/threads:16/' --benchmark_min_time=0.2 \
    --benchmark_format=json > /tmp/j/all-r$r-16t.json 2>/dev/null
done
python3 - /tmp/j/all-r*-1t.json /tmp/j/all-r*-16t.json <<'PY'
import collections, json, sys
rows = collections.defaultdict(list)
for f in sys.argv[1:]:
    for x in json.load(open(f))["benchmarks"]:
        if "vs_bits" in x:
            n = x["name"].split("/")
            rows["%s %s" % (n[2], n[4])].append(x["vs_bits"])
for k in sorted(rows):
    v = rows[k]
    print("%-30s %.3f-%.3f" % (k, min(v), max(v)))
PY
uptime
tar czf $OUT/raw.tgz -C /tmp j
