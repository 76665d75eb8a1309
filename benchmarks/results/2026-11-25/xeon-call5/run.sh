#!/bin/bash
# Device call 5: the 16-element call through the CLI (--repeat), HEAD
# (RandomGeneratorOperator for bits, constants by address) against base
# 647cd87, interleaved, 7 rounds, AVX3 and AVX2, one thread.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)|MHz"; uptime
. "$D/../../benchmarks/carried_openmpi.sh"  # Open MPI relocated, lib()
for r in 1 2 3 4 5 6 7; do for v in new base; do for t in AVX3 AVX2; do for d in bits uniform; do
  echo "$r $v $t $d $(LD_LIBRARY_PATH=$D/$v:$D/libs:$OMPILIB $D/$v/randtensor generate --sizes 16 --threads 1 --dist $d --target $t --repeat 1000000 2>&1 | grep Gelem)"
done; done; done; done | tee $OUT/call16.txt
uptime
