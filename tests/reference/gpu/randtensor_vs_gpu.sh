#!/usr/bin/env bash
# Runs on the GPU machine (the device tool's `run`, from the repository root),
# with a randtensor CLI built on the development machine carried in CARRY
# (default .carry/cli: randtensor, librandtensor.so.*, libhwy.so.1):
#   bash tests/reference/gpu/randtensor_vs_gpu.sh
# One CUDA thread's curand_uniform4 / curand_normal4 after
# curand_init(seed, subsequence, offset) (curand_capture.cu) against
# randtensor's uniform / normal float32 stream from the state SPEC.md section 7
# maps that triple to: 2^24 values per triple and function. Uniforms must be
# bit-equal; for normals the largest difference is reported (the GPU uses
# __sincosf). Writes $OUT/randtensor_vs_gpu.json.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
CARRY="${CARRY:-.carry/cli}"
OUT="${OUT:-/tmp/randtensor_vs_gpu}"
mkdir -p "$OUT"
work="$(mktemp -d)"
calls=$((1 << 22))  # 2^22 calls x 4 = 2^24 floats per triple and function
nvcc -O2 -arch=sm_90 -o "$work/curand_capture" "$here/curand_capture.cu"
"$work/curand_capture" "$work" "$calls" 1
export LD_LIBRARY_PATH="$CARRY${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$CARRY/randtensor" --version
while read -r t seed sub off; do
  words=$(python3 -c "
s, q, o = $seed, $sub, $off
b = o // 4
print(','.join(hex(w) for w in (b & 0xffffffff, b >> 32, q & 0xffffffff, q >> 32, s & 0xffffffff, s >> 32)))")
  for dist in uniform normal; do
    "$CARRY/randtensor" generate --sizes $((calls * 4)) --state "$words" --dist "$dist" \
      --out "$work/rt_${dist}_$t.npy" --format npy > /dev/null
  done
done < "$work/triples.txt"
python3 - "$work" "$OUT" <<'PY'
import json, sys
import numpy as np
work, out = sys.argv[1], sys.argv[2]
triples = [l.split() for l in open(f"{work}/triples.txt")]
res = {"values_per_triple": None, "uniform": [], "normal": []}
for t, seed, sub, off in triples:
    gu = np.fromfile(f"{work}/uniform4_{t}.f32", np.float32)
    gn = np.fromfile(f"{work}/normal4_{t}.f32", np.float32)
    ru = np.load(f"{work}/rt_uniform_{t}.npy")
    rn = np.load(f"{work}/rt_normal_{t}.npy")
    res["values_per_triple"] = int(gu.size)
    # cuRAND's uniform is in (0, 1]; randtensor's uniform(0, 1) flips 1.0 to 0
    # (PyTorch's rule, SPEC.md section 8): compare the words' u32 directly.
    flip = gu == 1.0
    equal = int(np.sum((ru == gu) | (flip & (ru == 0.0))))
    res["uniform"].append({"triple": [seed, sub, off], "equal": equal, "n": int(gu.size),
                           "ones_flipped": int(flip.sum())})
    d = np.abs(rn.astype(np.float64) - gn.astype(np.float64))
    ulp = np.spacing(np.abs(gn)).astype(np.float64)
    res["normal"].append({"triple": [seed, sub, off], "n": int(gn.size),
                          "max_abs_diff": float(d.max()),
                          "max_ulp_where_abs_ge_1e-3": float((d / ulp)[np.abs(gn) >= 1e-3].max()),
                          "equal_bits": int(np.sum(rn == gn))})
json.dump(res, open(f"{out}/randtensor_vs_gpu.json", "w"), indent=1)
print(json.dumps(res, indent=1))
PY
