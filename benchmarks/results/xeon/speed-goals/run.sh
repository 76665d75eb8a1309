#!/bin/bash
# Device call 12: the speed issue's goals at the session's final kernels
# (AVX2 with 5 vectors, small fills on AVX2), speed_goals.py --runs 3.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
. "$D/../../benchmarks/carried_openmpi.sh"
export LD_LIBRARY_PATH=$(lib new)
python3 $D/../../benchmarks/speed_goals.py --bench $D/new/randtensor_bench --cli $D/new/randtensor --runs 3 --json-out $OUT/goals.json | tee $OUT/goals.txt
uptime
