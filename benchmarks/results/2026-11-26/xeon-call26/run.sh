#!/bin/bash
# Device call 26 (2026-11-26, third session): the float normals at `2611dab`
# ("new": pairs from the state's order, the reduction's product fused, std's sign
# by vpermps on AVX-512) against `5606717` ("old"): 5 interleaved rounds,
# AVX3 and AVX2 at 64 Ki on 1 thread (pinned), AVX3 at 64 Mi on 16; then the
# Python module built there from the new static library and issue 15's
# torch ratios at one thread (three runs, pinned).
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
ab_rounds 5 'normal-float32|normal-float16|normal-bfloat16' 'AVX3|AVX2' old new
R=$D/../..
INC=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")
SUF=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
mkdir -p /tmp/mod/randtensor && cp $R/python/randtensor/*.py /tmp/mod/randtensor/
g++ -O2 -std=c++17 -shared -fPIC -fvisibility=hidden -I$R/include -I$D/inc -I$INC \
    $R/python/src/core.cc $R/python/src/bitgen.cc -DRANDTENSOR_VERSION='"0.1.0"' \
    $D/librandtensor.a $D/libs/libhwy.so.1 -lpthread -Wl,--exclude-libs,ALL \
    -o /tmp/mod/randtensor/_core$SUF > $OUT/build.txt 2>&1
cd $R/benchmarks
for i in 1 2 3; do
  LD_LIBRARY_PATH=$D/libs PYTHONPATH=/tmp/mod taskset -c 2 python3 compare_torch_adapter.py --threads 1 --repeat 9
done > $OUT/torch.txt 2>&1
finish
