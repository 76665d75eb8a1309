#!/bin/bash
# How close could any uniform float16 / bfloat16 / float64 kernel come to
# the uint32 fill? Two libraries built from HEAD in a scratch worktree, never shipped:
#   narrowing-only (uniform-narrowing-only.patch): the words themselves taken
#     as floats and narrowed to the output type (vcvtps2ph, AVX512_BF16's
#     pack), with no conversion, multiply-add or flip: less work than any
#     correct kernel does;
#   noflip (uniform-noflip.patch): SPEC.md's float(x) (float64: of z53)
#     and multiply-add, then the narrowing, without PyTorch's flip of H to
#     L (wrong only where the flip applies).
#
#   benchmarks/results/vm/ceilings/run-uniform.sh BUILD > uniform.txt
#
# BUILD: a build of the current tree with benchmarks (scripts/test.sh's
# build-test). Prints uniform float32 / float16 / bfloat16 elements per
# second over the bits fill's, AVX3, 64 Ki on one pinned CPU, 3 interleaved
# rounds of the shipped library and both ceilings under one benchmark binary.
. "$(dirname "$0")/common.sh"
mkdir -p "$scratch/lib/shipped"
cp -a "$build"/librandtensor.so* "$scratch/lib/shipped/"
for variant in narrowing-only noflip; do
  patched_build "uniform-$variant.patch" "$scratch/b-$variant" randtensor_shared
  mkdir -p "$scratch/lib/$variant"
  cp -a "$scratch/b-$variant"/librandtensor.so* "$scratch/lib/$variant/"
done

header
echo "## elements per second / bits fill's, AVX3, 64 Ki, one thread: uniform float32, float16, bfloat16, float64"
for round in 1 2 3; do
  for variant in shipped narrowing-only noflip; do
    printf '%-15s round %d: ' "$variant" "$round"
    LD_LIBRARY_PATH="$scratch/lib/$variant" taskset -c 1 "$build/benchmarks/randtensor_bench" \
      --benchmark_filter='^dist/AVX3/(bits|uniform-float32|uniform-float16|uniform-bfloat16|uniform-float64)/64Ki/threads:1/' \
      --benchmark_min_time=0.3 2>/dev/null | grep -o 'vs_bits=[0-9.]*' | tr '\n' ' '
    echo
  done
done
