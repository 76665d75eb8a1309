#!/usr/bin/env bash
# Runs on the GPU machine (the device tool's `run`, from the repository root):
#   bash tests/reference/gpu/capture.sh
# Builds and runs curand_capture (one CUDA thread per (triple, function)), checks
# every captured value there with compare.py's NumPy device mode, captures
# PyTorch's transforms (torch_capture.py), and copies the cuRAND and PyTorch
# headers that were used into $OUT/headers.tgz. Results go to $OUT (default
# /tmp/capture_out): summary.json, samples.npz, torch.npz, torch_bulk.json, env.txt,
# headers.tgz.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
OUT="${OUT:-/tmp/capture_out}"
mkdir -p "$OUT"
work="$(mktemp -d)"
CALLS4="${CALLS4:-1048576}"   # 4 triples * 2^20 calls * 4 = 2^24 floats per float function
CALLS2="${CALLS2:-262144}"    # 4 triples * 2^18 calls * 2 = 2^21 doubles per double function

{
  echo "command: bash tests/reference/gpu/capture.sh (CALLS4=$CALLS4 CALLS2=$CALLS2)"
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -2
  python3 -c 'import torch, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda, "numpy", numpy.__version__)'
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

nvcc -O2 -arch=sm_90 -o "$work/curand_capture" "$here/curand_capture.cu"
time "$work/curand_capture" "$work" "$CALLS4" "$CALLS2"
python3 "$here/compare.py" device "$work" "$OUT"
python3 "$here/torch_capture.py" "$OUT/torch.npz" || echo "torch capture failed"
# torch.rand / torch.randn over 2^24 values in PyTorch's own launch order (SPEC.md section 9).
python3 "$here/torch_bulk.py" "$OUT" || echo "torch bulk check failed"

# The exact headers behind the captures.
inc="$(dirname "$(command -v nvcc)")/../include"
tinc="$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include"))')"
hdr="$work/headers"; mkdir -p "$hdr/cuda" "$hdr/torch"
for f in curand_uniform.h curand_normal.h curand_philox4x32_x.h curand_kernel.h curand_globals.h; do
  cp "$(find -L "$inc" /usr/local/cuda/include -name "$f" 2>/dev/null | head -1)" "$hdr/cuda/" || echo "missing $f"
done
for f in ATen/core/TransformationHelper.h ATen/core/DistributionsHelper.h \
         ATen/native/cuda/DistributionTemplates.h ATen/native/DistributionTemplates.h \
         c10/util/Half-inl.h c10/util/BFloat16-inl.h c10/util/BFloat16.h ATen/OpMathType.h \
         ATen/AccumulateType.h; do
  mkdir -p "$hdr/torch/$(dirname "$f")"
  cp "$tinc/$f" "$hdr/torch/$f" 2>/dev/null || echo "missing torch $f"
done
tar czf "$OUT/headers.tgz" -C "$hdr" .
ls -l "$OUT"
