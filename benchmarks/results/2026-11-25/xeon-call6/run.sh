#!/bin/bash
# Device call 6: is the Xeon's 2x swing in 16-element calls tied to the vCPU?
# Each vCPU in turn (taskset), new bits and uniform, AVX3, three times.
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/carried_openmpi.sh"  # Open MPI relocated, lib()
lscpu -e | head -20
for r in 1 2 3; do for c in $(seq 0 15); do for v in new base; do
  b=$(LD_LIBRARY_PATH=$D/$v:$D/libs:$OMPILIB taskset -c $c $D/$v/randtensor generate --sizes 16 --threads 1 --target AVX3 --repeat 300000 2>&1 | awk '/Gelem/{printf "%.0f", 16/$2}')
  u=$(LD_LIBRARY_PATH=$D/$v:$D/libs:$OMPILIB taskset -c $c $D/$v/randtensor generate --sizes 16 --threads 1 --dist uniform --target AVX3 --repeat 300000 2>&1 | awk '/Gelem/{printf "%.0f", 16/$2}')
  echo "$r cpu$c $v bits $b uniform $u"
done; done; done | tee $OUT/pin.txt
