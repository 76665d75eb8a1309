#!/bin/bash
# Device call 1: the 16-element call (HEAD vs base 4187065, interleaved), the
# region goal, and the MPI CLI against independent processes for P = 2..16
# (Debian's Open MPI 4.1.4 carried as .debs, relocated with OPAL_PREFIX).
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)|MHz"; uptime; df -h /tmp | tail -1
. "$D/../../benchmarks/carried_openmpi.sh"  # Open MPI relocated, lib()
export LD_LIBRARY_PATH=$D/libs:$OMPILIB
# --- A: 16-element calls, 5 interleaved rounds
for r in 1 2 3 4 5; do for v in new base; do for t in AVX3 AVX2; do for d in bits uniform; do
  echo "$v $t $d $(LD_LIBRARY_PATH=$D/$v:$D/libs:$OMPILIB $D/$v/randtensor generate --sizes 16 --threads 1 --dist $d --target $t --repeat 1000000 2>&1 | grep Gelem)"
done; done; done; done | tee $OUT/call16.txt
# --- B: regions, 3 runs
for r in 1 2 3; do
  LD_LIBRARY_PATH=$D/new:$D/libs:$OMPILIB RANDTENSOR_BENCH_THREADS=1,16 $D/new/randtensor_bench --benchmark_filter='^region/' --benchmark_min_time=0.3 --benchmark_format=json > $OUT/region-$r.json 2>/dev/null
done
python3 - <<'PY'
import json,os
for r in (1,2,3):
    for b in json.load(open(f"{os.environ['OUT']}/region-{r}.json"))["benchmarks"]:
        print(r, b["name"], {k: round(v,3) for k,v in b.items() if k.startswith("vs_") or k=="ratio"})
PY
uptime
# --- C: MPI CLI vs P independent processes, 2 GiB float32, 3 runs per P
export LD_LIBRARY_PATH=$D/new:$D/libs:$OMPILIB
for P in 2 4 8 16; do
  echo "== P=$P"
  MPIEXEC=$R/usr/bin/orterun RANKS=$P bash $D/../../benchmarks/mpi_write.sh $D/new/randtensor /tmp/mpibench 512 3 2>&1 | grep -v "help-pcompress\|pcompress\|unavailable\|^---\|Sorry\|couldn't open\|^$\|^    " 
done | tee $OUT/mpi.txt
uptime
