#!/bin/bash
# Device call 15 (2026-11-26): normal float64 with its series by fused
# multiply-adds (new, 7db1fa0) against d0b3122 (old), the library swapped
# under one benchmark binary, rounds interleaved: 64 Ki on 1 thread pinned to
# vCPU 2 (AVX3, AVX2), 64 Mi on 16 threads (AVX3). Then every kind against
# bits with the new library, 3 rounds.
# (Rewritten after the call to use benchmarks/device_vs_bits.sh: the same
# runs; the call ran them written out. Call 18 reran call 17's this way.)
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 5 'normal-float64' 'AVX3|AVX2' old new
all_kinds 3 new
finish
