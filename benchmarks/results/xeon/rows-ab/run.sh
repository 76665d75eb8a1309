#!/bin/bash
# Device run: AVX-512 tests of the rows paths, then an A/B (old, new
# libraries; the new bench binary) of padded rows and packed fills.
# Runs from a carried folder holding new/ (librandtensor.so.0.1 and
# randtensor_bench), old/ (librandtensor.so.0.1), libs/ (the benchmark's
# Debian libraries) and tests/ (the test programs); writes ab.tgz, whose
# JSON files lie beside this script.
D="$(cd "$(dirname "$0")" && pwd)"
R=${R:-3}
lscpu | grep -E "Model name|^CPU\(s\)" ; uptime
export LD_LIBRARY_PATH=$D/new:$D/libs
cd $D/tests
run() { echo "== $*"; timeout 240 "$@" --gtest_brief=1 2>&1 | tail -4; }
run ./randtensor_correctness_tests --gtest_filter='Rows.*:Layouts.*:Regions.*'
run ./randtensor_guard_tests
run ./randtensor_determinism_tests
run ./randtensor_kernels_test
run ./randtensor_distributions_test --gtest_filter='*Padded*:*Rows*:*Strided*:*Layout*'

mkdir -p /tmp/j
F1='^(rows/(AVX3|AVX2)/(bits-uint32|uniform-float32)/[0-9x]*-stride[0-9]*|fill/AVX3/packed/256KiB|fill/AVX2/packed/256KiB|dist/AVX3/(uniform|normal)-float32/64Ki|stores/AVX3/regular/64MiB)/threads:1/'
F16='^rows/AVX3/(bits-uint32|uniform-float32)/(1024x256-stride272|1024x250-stride272|4096x64-stride80)/threads:16/'
for r in $(seq $R); do
  for t in old new; do
    RANDTENSOR_BENCH_THREADS=1 LD_LIBRARY_PATH=$D/$t:$D/libs taskset -c 2 $D/new/randtensor_bench --benchmark_filter="$F1" \
      --benchmark_min_time=0.2 --benchmark_format=json > /tmp/j/r$r-$t-1t.json 2>/tmp/j/r$r-$t-1t.err
    RANDTENSOR_BENCH_THREADS=16 LD_LIBRARY_PATH=$D/$t:$D/libs $D/new/randtensor_bench --benchmark_filter="$F16" \
      --benchmark_min_time=0.2 --benchmark_format=json > /tmp/j/r$r-$t-16t.json 2>/tmp/j/r$r-$t-16t.err
    echo "round $r $t done $(date +%T)"
  done
done
uptime
tar czf "$OUT/ab.tgz" -C /tmp j
