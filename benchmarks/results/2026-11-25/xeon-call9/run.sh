#!/bin/bash
# Device call 9: is the Xeon's per-process bimodality address layout (ASLR)?
# 12 processes each with ASLR on and off (setarch -R), uniform float32, 16
# elements, auto; then bits with ASLR off and on.
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/carried_openmpi.sh"
export LD_LIBRARY_PATH=$(lib new)
one() { "$@" $D/new/randtensor generate --sizes 16 --threads 1 --dist $DIST --dtype $TY --repeat 300000 2>&1 | awk '/Gelem/{printf "%.1f ", 16/$2}'; }
for DT in uniform:float32 bits:uint32 normal:float32; do DIST=${DT%%:*}; TY=${DT##*:}
  echo "$DIST aslr-on:  $(for i in $(seq 12); do one; done)"
  echo "$DIST aslr-off: $(for i in $(seq 12); do one setarch x86_64 -R; done)"
done | tee $OUT/aslr.txt
