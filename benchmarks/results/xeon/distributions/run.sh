#!/bin/bash
# Device call 27 (2026-11-26, third session): uniform float64 with z53 from
# the Philox state's order (`b717d41`, "new") against `2611dab` ("old"), 5
# interleaved rounds (64 Ki on 1 thread pinned, AVX3 and AVX2; 64 Mi on 16
# threads); then every kind of the new code, AVX3, 3 rounds.
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 5 'uniform-float64|normal-float32' 'AVX3|AVX2' old new
all_kinds 3 new
finish
