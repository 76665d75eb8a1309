#!/bin/bash
# Device call 28 (2026-11-26, fourth session): how far the remaining speed
# goals are from what any kernel could do here. Trees (each a library built
# from `eab814e` with a patch of ../zen4-ceilings/): head (as shipped),
# uceil (uniform: the words narrowed to the output type, nothing else:
# uniform-narrowing-only.patch), noflip (uniform: SPEC's float(x) and
# multiply-add and the narrowing, without PyTorch's flip: uniform-noflip.patch),
# ceil (normal float32: Box-Muller with every step rounded once, no error
# terms, the shipped polynomials: ceiling.patch; not within SPEC's 2 ulp).
# AVX3; 64 Ki on 1 thread pinned and 64 Mi on 16 threads; then
# randtensor.torch.normal_ against torch's at one thread, head and ceil.
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 4 'uniform-float32|uniform-float16|uniform-bfloat16' 'AVX3' head uceil noflip
ab_rounds 4 'normal-float32' 'AVX3' head ceil
torch_ab 3 head ceil
finish
