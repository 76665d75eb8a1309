#!/bin/bash
# Device call 22: randtensor's Python module built there for Python 3.12 / NumPy 2.5 / torch 2.11
# (python/src/arrays.h's fix): the Python test suite, then issue 15's ratios on the Xeon.
D=$PWD/.carry/t2
export LD_LIBRARY_PATH=$D:$D/libs
lscpu | grep -E "Model name|^CPU\(s\)" > $OUT/machine.txt
python3 -c "import sys,torch,numpy; print(sys.version, torch.__version__, numpy.__version__)" >> $OUT/machine.txt
INC=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")
SUF=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
mkdir -p /tmp/mod/randtensor && cp python/randtensor/*.py /tmp/mod/randtensor/
g++ -O2 -std=c++17 -shared -fPIC -fvisibility=hidden -Iinclude -I$D/inc -I$INC python/src/core.cc python/src/bitgen.cc \
    -DRANDTENSOR_VERSION='"0.1.0"' $D/librandtensor.a $D/libs/libhwy.so.1 -lpthread -Wl,--exclude-libs,ALL \
    -o /tmp/mod/randtensor/_core$SUF > $OUT/build.txt 2>&1
export PYTHONPATH=/tmp/mod
RANDTENSOR_CLI=$D/randtensor PYTHONDONTWRITEBYTECODE=1 timeout 300 python3 -m pytest -q -p no:cacheprovider -rs --tb=short python/tests > $OUT/pytest.txt 2>&1
echo "pytest rc $?" >> $OUT/pytest.txt
cd benchmarks
( taskset -c 2 python3 compare_torch_adapter.py --threads 1 --repeat 9
  python3 compare_torch_adapter.py --threads 16 --repeat 9 ) > $OUT/torch_module.txt 2>&1
( for i in 1 2; do taskset -c 2 python3 compare_bitgen.py --repeats 9; done
  python3 compare_bitgen.py --repeats 9 --threads 0 ) > $OUT/bitgen.txt 2>&1
( taskset -c 2 python3 $D/raw.py 1; python3 $D/raw.py 16; taskset -c 2 python3 $D/bitgen_prealloc.py  # = ../xeon-call19/bitgen_prealloc.py ) > $OUT/raw.txt 2>&1
