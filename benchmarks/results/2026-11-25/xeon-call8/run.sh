#!/bin/bash
# Device call 8: small fills on AVX2 under the automatic choice (963f060).
# (1) the crossover: CLI --repeat, 16-128 elements, forced AVX3 / AVX2 and
# auto, bits / uniform float32 / normal float32, 3 rounds, one thread;
# (2) auto at 16 elements, new against base b3dad4f, interleaved, 7 rounds.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)|MHz"; uptime
. "$D/../../benchmarks/carried_openmpi.sh"  # Open MPI relocated, lib()
call() {  # TREE TARGET DIST SIZE -> ns per call
  local ty=float32; [ "$3" = bits ] && ty=uint32
  local g=$(LD_LIBRARY_PATH=$(lib $1) $D/$1/randtensor generate --sizes $4 --threads 1 --dist $3 --dtype $ty --target $2 --repeat 300000 2>&1 | awk '/Gelem/{print $2}')
  awk -v n=$4 -v g=$g 'BEGIN{printf "%.1f", n/g}'
}
for r in 1 2 3; do for n in 16 32 64 128; do for d in bits uniform normal; do
  echo "$r $n $d AVX3 $(call new AVX3 $d $n) AVX2 $(call new AVX2 $d $n) auto $(call new auto $d $n)"
done; done; done | tee $OUT/crossover.txt
for r in 1 2 3 4 5 6 7; do for v in new base; do for d in bits uniform normal; do
  echo "$r $v $d $(call $v auto $d 16)"
done; done; done | tee $OUT/auto16.txt
uptime
