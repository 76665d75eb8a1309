#!/bin/bash
# Device call 26 (2026-11-26, third session): the float normals at `2611dab`
# ("new": pairs from the state's order, the reduction's product fused, std's sign
# by vpermps on AVX-512) against `5606717` ("old"): 5 interleaved rounds,
# AVX3 and AVX2 at 64 Ki on 1 thread (pinned), AVX3 at 64 Mi on 16; then the
# Python module built there from the new static library and issue 15's
# torch ratios at one thread (three runs, pinned).
# (The module build and the torch runs now come from the helper's
# torch_runs: the same commands as ran; the helper now heads each run with
# a "==" line and names the build log build-librandtensor.txt.)
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 5 'normal-float32|normal-float16|normal-bfloat16' 'AVX3|AVX2' old new
torch_runs 3
finish
