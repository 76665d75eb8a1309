#!/bin/bash
# How fast could a SPEC-accurate Box-Muller be at most? ceiling.patch replaces
# math::BoxMullerLanes with one that rounds every step once, carries no
# error terms and keeps the shipped polynomials (47 vector operations per
# vector of pairs instead of 74): NOT within SPEC.md's 2 ulp (this script
# measures how far off). Built in a scratch worktree; never shipped.
#
#   benchmarks/results/vm/ceilings/run-normal.sh BUILD > normal.txt
#
# BUILD: a build of the current tree with benchmarks, tools and the Python
# module (scripts/test.sh's build-test). Prints, for the shipped kernel and
# the ceiling, normal-float32 / bits at 64 Ki on one pinned CPU (3
# interleaved rounds), randtensor.torch.normal_ against torch's normal_ at
# one thread (compare_torch_adapter.py, 3 interleaved runs of 9 pairs), and
# the ceiling's largest distance, in ulp, from the shipped kernel's values
# (which are within 1.41 ulp of the exact formula) over 16 M normals, in ulp
# or in 2^-23 where that is larger (SPEC.md promises 2 ulp or 2^-22).
. "$(dirname "$0")/common.sh"
patched_build ceiling.patch "$scratch/b" randtensor_shared randtensor_cli randtensor_python
mkdir -p "$scratch/lib/shipped" "$scratch/lib/ceiling"
cp -a "$build"/librandtensor.so* "$scratch/lib/shipped/"
cp -a "$scratch/b"/librandtensor.so* "$scratch/lib/ceiling/"

header
echo "## normal-float32 / bits, AVX3, 64 Ki, one thread (library swapped under one benchmark binary)"
for round in 1 2 3; do
  for kernel in shipped ceiling; do
    printf '%-8s round %d: ' "$kernel" "$round"
    LD_LIBRARY_PATH="$scratch/lib/$kernel" taskset -c 1 "$build/benchmarks/randtensor_bench" \
      --benchmark_filter='^dist/AVX3/(bits|normal-float32)/64Ki/threads:1/' \
      --benchmark_min_time=0.3 2>/dev/null | grep -o 'vs_bits=[0-9.]*'
  done
done
echo "## randtensor.torch.normal_ / torch normal_, float32, 64 MiB, one thread"
for round in 1 2 3; do
  for kernel in shipped ceiling; do
    python_dir=$build/python
    [ "$kernel" = ceiling ] && python_dir=$scratch/b/python
    printf '%-8s round %d: ' "$kernel" "$round"
    (cd "$repo/benchmarks" && PYTHONPATH="$python_dir" taskset -c 1 /usr/bin/python3 \
      compare_torch_adapter.py --threads 1 --repeat 9 | grep 'float32   normal')
  done
done
echo "## the ceiling's distance from the shipped values (16 M normals, seed 12345)"
"$build/tools/randtensor" generate --sizes 16000000 --seed 12345 --target AVX3 --dist normal \
  --dtype float32 --format npy --out "$scratch/shipped.npy" >/dev/null
"$scratch/b/tools/randtensor" generate --sizes 16000000 --seed 12345 --target AVX3 --dist normal \
  --dtype float32 --format npy --out "$scratch/ceiling.npy" >/dev/null
/usr/bin/python3 - "$scratch/shipped.npy" "$scratch/ceiling.npy" <<'EOF'
import sys
import numpy as np
shipped, ceiling = (np.load(p).astype(np.float64) for p in sys.argv[1:])
ulp = np.spacing(np.abs(shipped).astype(np.float32)).astype(np.float64)
# in ulp, or in units of 2^-23 where that is larger (SPEC.md: 2 ulp or 2^-22)
d = np.abs(ceiling - shipped) / np.maximum(ulp, 2.0 ** -23)
print(f"largest {d.max():.1f} ulp; beyond 1 ulp {np.mean(d > 1):.2%}, beyond 2 ulp {np.mean(d > 2):.2%}")
EOF
