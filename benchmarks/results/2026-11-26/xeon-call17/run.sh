#!/bin/bash
# Device call 17 (2026-11-26): this stop's code (86be741, "new") against the
# session's start (b23610e, "old"), the library swapped under one benchmark
# binary, rounds interleaved: normal float32/float16/float64 at 64 Ki on 1
# thread pinned to vCPU 2 (AVX3, AVX2) and at 64 Mi on 16 threads (AVX3);
# then every kind at 86be741, 3 rounds.
# (Rewritten after the call to use benchmarks/device_vs_bits.sh: the same
# runs; the call ran them written out. Call 18 reran call 17's this way.)
# (Call 17 itself ran float16 normals on 1 thread only, and printed kinds as "n-float32".)
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 5 'normal-float32|normal-float16|normal-float64' 'AVX3|AVX2' old new
all_kinds 3 new
finish
