#!/bin/bash
# Device call 23 (2026-11-26, second session): uniform bfloat16 with
# AVX512_BF16's pack (af84860, "new") against the library before it
# (ab4ec86's kernels, "old"), the library swapped under one benchmark binary,
# 5 interleaved rounds: 64 Ki on 1 thread pinned to vCPU 2 (AVX3) and 64 Mi
# on 16 threads; float16 and float32 alongside (unchanged code). First the
# pack's exhaustive test on this CPU.
# (The machine lines and the final uptime and tar now come from the helper:
# the same commands as ran.)
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
lscpu | grep -E "Flags" | sed 's/Flags:.*\(avx512_bf16\).*/Flags: ... \1 .../'
LD_LIBRARY_PATH=$D/libs $D/randtensor_pack_bfloat16_test 2>&1 | tail -4
ab_rounds 5 'uniform-bfloat16|uniform-float16|uniform-float32' 'AVX3' old new
finish
