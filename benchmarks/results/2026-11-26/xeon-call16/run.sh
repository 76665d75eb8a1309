#!/bin/bash
# Device call 16 (2026-11-26): normal float64 with the log's second division
# replaced by a Newton reciprocal (new) against 7db1fa0 (old), the library
# swapped under one benchmark binary, rounds interleaved: 64 Ki on 1 thread
# pinned to vCPU 2 (AVX3, AVX2), 64 Mi on 16 threads (AVX3).
# (Rewritten after the call to use benchmarks/device_vs_bits.sh: the same
# runs; the call ran them written out. Call 18 reran call 17's this way.)
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 6 'normal-float64' 'AVX3|AVX2' old new
finish
