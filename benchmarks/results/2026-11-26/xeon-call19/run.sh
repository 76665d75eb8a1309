#!/bin/bash
# Device call: issue 15's torch and NumPy ratios on the Xeon (torch 2.11, NumPy 2.5, Python 3.12).
D=.carry/t1
export LD_LIBRARY_PATH=$PWD/$D:$PWD/$D/libs
lscpu | grep -E "Model name|^CPU\(s\)|Thread" > $OUT/machine.txt
python3 -c "import sys,torch,numpy; print(sys.version, torch.__version__, numpy.__version__)" >> $OUT/machine.txt
INC=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")
SUF=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
echo "include $INC suffix $SUF" >> $OUT/machine.txt; ls $INC/Python.h >> $OUT/machine.txt 2>&1; g++ --version | head -1 >> $OUT/machine.txt
mkdir -p /tmp/mod/randtensor && cp python/randtensor/*.py /tmp/mod/randtensor/
( time g++ -O2 -std=c++17 -shared -fPIC -fvisibility=hidden -Iinclude -I$D/inc -I$INC python/src/core.cc python/src/bitgen.cc \
    -DRANDTENSOR_VERSION='"0.1.0"' $D/librandtensor.a $D/libs/libhwy.so.1 -lpthread -Wl,--exclude-libs,ALL \
    -o /tmp/mod/randtensor/_core$SUF ) > $OUT/build.txt 2>&1
cd benchmarks
( taskset -c 2 python3 compare_torch_adapter.py --capi ../$D/librandtensor.so --threads 1 --repeat 9
  python3 compare_torch_adapter.py --capi ../$D/librandtensor.so --threads 16 --repeat 9 ) > $OUT/torch_capi.txt 2>&1
if [ -f /tmp/mod/randtensor/_core$SUF ]; then
  export PYTHONPATH=/tmp/mod
  ( taskset -c 2 python3 compare_torch_adapter.py --threads 1 --repeat 9
    python3 compare_torch_adapter.py --threads 16 --repeat 9 ) > $OUT/torch_module.txt 2>&1
  for i in 1 2 3; do taskset -c 2 python3 compare_bitgen.py --repeats 9; done > $OUT/bitgen.txt 2>&1
  for i in 1 2 3; do taskset -c 2 python3 ../$D/bitgen_prealloc.py; done > $OUT/bitgen_prealloc.txt 2>&1
fi
