#!/bin/bash
# Device call 25 (2026-11-26, third session): float normals on AVX-512 from
# the state's order (NormalFromBlocks, "new") against the fused round 9 and
# permutes before it ("old"): 5 interleaved rounds, 64 Ki on 1 thread
# (pinned) and 64 Mi on 16; every kind of the new code (3 rounds); then the
# Python module built there from the new static library and issue 15's
# torch ratios at one thread (two runs, pinned).
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 5 'normal-float32|normal-float16|normal-bfloat16' 'AVX3' old new
all_kinds 3 new
R=$D/../..
INC=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")
SUF=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
mkdir -p /tmp/mod/randtensor && cp $R/python/randtensor/*.py /tmp/mod/randtensor/
g++ -O2 -std=c++17 -shared -fPIC -fvisibility=hidden -I$R/include -I$D/inc -I$INC \
    $R/python/src/core.cc $R/python/src/bitgen.cc -DRANDTENSOR_VERSION='"0.1.0"' \
    $D/librandtensor.a $D/libs/libhwy.so.1 -lpthread -Wl,--exclude-libs,ALL \
    -o /tmp/mod/randtensor/_core$SUF > $OUT/build.txt 2>&1
cd $R/benchmarks
for i in 1 2; do
  LD_LIBRARY_PATH=$D/libs PYTHONPATH=/tmp/mod taskset -c 2 python3 compare_torch_adapter.py --threads 1 --repeat 9
done > $OUT/torch.txt 2>&1
finish
