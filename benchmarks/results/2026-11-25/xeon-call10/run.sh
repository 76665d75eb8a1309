#!/bin/bash
# Device call 10: a second host for the 16-element calls under auto (963f060
# against base b3dad4f), 15 interleaved rounds, bits / uniform / normal float32.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
. "$D/../../benchmarks/carried_openmpi.sh"  # Open MPI relocated, lib()
call() {  # TREE DIST SIZE -> ns per call
  local ty=float32; [ "$2" = bits ] && ty=uint32
  local g=$(LD_LIBRARY_PATH=$(lib $1) $D/$1/randtensor generate --sizes $3 --threads 1 --dist $2 --dtype $ty --repeat 300000 2>&1 | awk '/Gelem/{print $2}')
  awk -v n=$3 -v g=$g 'BEGIN{printf "%.1f", n/g}'
}
for r in $(seq 15); do for v in new base; do for d in bits uniform normal; do
  echo "$r $v $d $(call $v $d 16)"
done; done; done | tee $OUT/auto16.txt
uptime
