#!/bin/bash
# Device call 14 (2026-11-26): normal float32/float16 against bits with the
# quadrant's sign folded into std (new: permute on AVX2/AVX-512; noperm: the
# same, shifts on AVX-512) against b23610e (old), the library swapped under
# one benchmark binary, rounds interleaved; 1 thread pinned to vCPU 2 (AVX3
# and AVX2), and 16 threads at 64 Mi (AVX3).
# (Rewritten after the call to use benchmarks/device_vs_bits.sh: the same
# runs; the call ran them written out. Call 18 reran call 17's this way.)
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 5 'normal-float32|normal-float16' 'AVX3|AVX2' old new noperm
all_kinds 3 new
finish
