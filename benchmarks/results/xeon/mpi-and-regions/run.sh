#!/bin/bash
# Device call 3 (final): HEAD (new/) against 4187065 (base/), interleaved:
# 16-element calls, distributions; regions and the speed goals on HEAD; the
# MPI CLI's fixed costs and its ratio at 2 GiB.
cd "$(dirname "$0")"; D=$PWD
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
. "$D/../../benchmarks/carried_openmpi.sh"  # Open MPI relocated, lib()
# --- A: 16-element calls, 7 interleaved rounds
for r in 1 2 3 4 5 6 7; do for v in new base; do for t in AVX3 AVX2; do for d in bits uniform; do
  echo "$v $t $d $(LD_LIBRARY_PATH=$(lib $v) $D/$v/randtensor generate --sizes 16 --threads 1 --dist $d --target $t --repeat 1000000 2>&1 | grep Gelem)"
done; done; done; done > $OUT/call16.txt
# --- C: regions and the speed goals, HEAD
for r in 1 2 3; do
  LD_LIBRARY_PATH=$(lib new) RANDTENSOR_BENCH_THREADS=1,16 $D/new/randtensor_bench --benchmark_filter='^region/' --benchmark_min_time=0.3 2>/dev/null | grep region | awk '{print $1, $NF}'
done | tee $OUT/region.txt
LD_LIBRARY_PATH=$(lib new) python3 $D/../../benchmarks/speed_goals.py --bench $D/new/randtensor_bench --cli $D/new/randtensor --runs 3 > $OUT/speed_goals.txt 2>&1
tail -9 $OUT/speed_goals.txt
# --- D: MPI fixed costs (launcher; MPI_Init + Finalize) and the 2 GiB ratio
export LD_LIBRARY_PATH=$(lib new)
python3 - <<'PY' | tee $OUT/mpi-fixed.txt
import os, subprocess, time
D = os.environ.get("PWD")
M = ["/tmp/ompi/usr/bin/orterun", "--oversubscribe"]
cli = os.path.join(D, "new/randtensor")
def t(cmd):
    s = time.perf_counter(); subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); return time.perf_counter() - s
for P in (2, 16):
    rows = {"mpirun true": [], "mpirun cli 16": [], "cli 16": []}
    for _ in range(5):
        rows["mpirun true"].append(t(M + ["-np", str(P), "true"]))
        rows["mpirun cli 16"].append(t(M + ["-np", str(P), cli, "generate", "--sizes", "16", "--quiet"]))
        rows["cli 16"].append(t([cli, "generate", "--sizes", "16", "--quiet"]))
    print(P, {k: " ".join("%.3f" % x for x in sorted(v)) for k, v in rows.items()})
PY
for P in 2 16; do for direct in 1 0; do
  echo "== P=$P RANDTENSOR_MPI_DIRECT=$direct"
  RANDTENSOR_MPI_DIRECT=$direct MPIEXEC=$R/usr/bin/orterun RANKS=$P bash $D/../../benchmarks/mpi_write.sh $D/new/randtensor /tmp/mpibench 512 3 2>&1 | grep -E "^[0-9]|ratio"
done; done | tee $OUT/mpi2g.txt
uptime
