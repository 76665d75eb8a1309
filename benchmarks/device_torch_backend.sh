#!/usr/bin/env bash
# randtensor.torch's backend on the GPU host (one H100, 16 Xeon vCPUs, torch
# 2.x, no compiler packages of its own beyond g++): builds the Python module
# and the backend there against that torch, then
#   1. records on the GPU what randtensor must reproduce
#      (tests/reference/torch_backend/record_model.py, record_distributions.py),
#   2. runs the backend's tests under that torch, the new recordings included,
#   3. runs benchmarks/torch_backend_bench.py on all 16 threads and on one.
# Run from the repository root as `bash benchmarks/device_torch_backend.sh`
# with $C (default .carry) holding what the host lacks, made on a Debian
# build machine:
#   $C/lib/librandtensor.a  libhwy.so.1     (build/, /usr/lib/x86_64-linux-gnu)
#   $C/inc/pybind11 dlpack                   (/usr/include)
#   $C/site/pytest _pytest pluggy iniconfig packaging py.py   (Debian's pytest)
# Everything it writes goes to $OUT (the device tool's output folder).
set -uo pipefail
C=${C:-.carry}
OUT=${OUT:-/tmp/out}
M=/tmp/mod/randtensor
mkdir -p "$M" "$OUT"
cp python/randtensor/*.py "$M/"
lscpu | grep -E "Model name|^CPU\(s\)"
nvidia-smi --query-gpu=name --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__)"

inc=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")
suf=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
T=$(python3 -c "import os, torch; print(os.path.dirname(torch.__file__))")
abi=$(python3 -c "import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))")
g++ -O2 -std=c++17 -shared -fPIC -fvisibility=hidden -Iinclude -I"$C/inc" -I"$inc" \
  python/src/core.cc python/src/bitgen.cc -DRANDTENSOR_VERSION='"0.1.0"' \
  "$C/lib/librandtensor.a" "$C/lib/libhwy.so.1" -lpthread -Wl,--exclude-libs,ALL \
  -o "$M/_core$suf" > "$OUT/build.txt" 2>&1 || { cat "$OUT/build.txt"; exit 1; }
for std in c++17 c++20; do
  g++ -O3 -std=$std -shared -fPIC -fopenmp -fvisibility=hidden -D_GLIBCXX_USE_CXX11_ABI="$abi" -Iinclude \
    -I"$T/include" -I"$T/include/torch/csrc/api/include" python/torch_backend/*.cc \
    "$C/lib/librandtensor.a" "$C/lib/libhwy.so.1" -L"$T/lib" -ltorch -ltorch_cpu -lc10 \
    -Wl,--exclude-libs,ALL -Wl,-rpath,"$T/lib" -o "$M/_torch_backend.so" \
    >> "$OUT/build.txt" 2>&1 && break
done
[ -f "$M/_torch_backend.so" ] || { tail -40 "$OUT/build.txt"; exit 1; }
export LD_LIBRARY_PATH=$C/lib PYTHONPATH=/tmp/mod:$C/site PYTHONDONTWRITEBYTECODE=1

echo "== 1. recordings"
python3 tests/reference/torch_backend/record_model.py --out "$OUT/recorded"
python3 tests/reference/torch_backend/record_distributions.py --out "$OUT/recorded"
mkdir -p tests/reference/torch_backend/recorded && cp "$OUT"/recorded/* tests/reference/torch_backend/recorded/

echo "== 2. tests under this torch"
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q -p no:cacheprovider python/tests/test_torch_backend*.py 2>&1 | tail -25

echo "== 3. benchmarks"
python3 benchmarks/torch_backend_bench.py --rounds "${ROUNDS:-5}"
taskset -c 2 python3 benchmarks/torch_backend_bench.py --threads 1 --rounds "${ROUNDS:-5}"
