#!/bin/bash
# Device call 25 (2026-11-26, third session): float normals on AVX-512 from
# the state's order (NormalFromBlocks, "new") against the fused round 9 and
# permutes before it ("old"): 5 interleaved rounds, 64 Ki on 1 thread
# (pinned) and 64 Mi on 16; every kind of the new code (3 rounds); then the
# Python module built there from the new static library and issue 15's
# torch ratios at one thread (two runs, pinned).
# (The module build and the torch runs now come from the helper's
# torch_runs: the same commands as ran; the helper now heads each run with
# a "==" line and names the build log build-librandtensor.txt.)
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 5 'normal-float32|normal-float16|normal-bfloat16' 'AVX3' old new
all_kinds 3 new
torch_runs 2
finish
