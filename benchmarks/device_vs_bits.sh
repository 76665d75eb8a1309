# Sourced by the device scripts that measure distributions against bits
# (benchmarks/results/xeon/*/run.sh, run from .carry/nN as
# `bash .carry/nN/run.sh`, with D set to that folder): $D holds
# randtensor_bench, libs/ (its shared libraries) and one folder per library
# tree (old, new, ...), each with librandtensor.so.0.1; the JSON goes to
# /tmp/j, and `finish` tars it into $OUT. Sourcing it prints the machine.
mkdir -p /tmp/j
lscpu | grep -E "Model name|^CPU\(s\)"; uptime

# finish: the load after the runs, and the JSON into $OUT/raw.tgz.
finish() {
  uptime
  tar czf "$OUT/raw.tgz" -C /tmp j
}
vs_bits() { python3 "$D/../../benchmarks/vs_bits.py" "$@"; }

# bench TREE OUTFILE FILTER [taskset CPU]: one randtensor_bench run of TREE.
bench() {
  local tree=$1 out=$2 filter=$3 pin=()
  [ -n "${4:-}" ] && pin=(taskset -c "$4")
  LD_LIBRARY_PATH=$D/$tree:$D/libs "${pin[@]}" "$D/randtensor_bench" \
    --benchmark_filter="$filter" --benchmark_min_time="${MIN_TIME:-0.3}" \
    --benchmark_format=json > "$out" 2>/dev/null
}

# ab_rounds ROUNDS KINDS TARGETS_1T TREE...: interleaved rounds; in each,
# every TREE at 64 Ki on 1 thread pinned to vCPU 2 (targets TARGETS_1T, an
# alternation such as 'AVX3|AVX2') and at 64 Mi on 16 threads (AVX3), KINDS
# (an alternation of kinds) with bits; prints one line per tree and round.
# (Each call's JSON is named by its call number, so a later call keeps it.)
AB_CALL=0
ab_rounds() {
  local rounds=$1 kinds=$2 targets=$3 r b p
  shift 3
  AB_CALL=$((AB_CALL + 1))
  for r in $(seq "$rounds"); do
    for b in "$@"; do
      p=/tmp/j/ab$AB_CALL-r$r-$b
      bench "$b" "$p-1t.json" "^dist/($targets)/(bits|$kinds)/64Ki/threads:1/" 2
      bench "$b" "$p-16t.json" "^dist/AVX3/(bits|$kinds)/65536Ki/threads:16/"
      vs_bits row "$b" "$p-1t.json" "$p-16t.json" --kinds "$kinds"
    done
  done
}

# all_kinds ROUNDS TREE: every kind of TREE on AVX3, 64 Ki on 1 thread
# (pinned) and 64 Mi on 16 threads; prints each kind's range over the rounds.
all_kinds() {
  local rounds=$1 tree=$2 r
  for r in $(seq "$rounds"); do
    MIN_TIME=0.2 bench "$tree" "/tmp/j/all-r$r-1t.json" '^dist/AVX3/[^/]*/64Ki/threads:1/' 2
    MIN_TIME=0.2 bench "$tree" "/tmp/j/all-r$r-16t.json" '^dist/AVX3/[^/]*/65536Ki/threads:16/'
  done
  vs_bits table /tmp/j/all-r*-1t.json /tmp/j/all-r*-16t.json
}

# module TREE: randtensor's Python module built for the host's Python from
# $D/TREE.a (a static library; pybind11 and dlpack headers in $D/inc) into
# /tmp/mod-TREE (the build's messages in $OUT/build-TREE.txt).
module() {
  local tree=$1 R=$D/../.. inc suf
  inc=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")
  suf=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
  mkdir -p "/tmp/mod-$tree/randtensor" && cp "$R"/python/randtensor/*.py "/tmp/mod-$tree/randtensor/"
  g++ -O2 -std=c++17 -shared -fPIC -fvisibility=hidden -I"$R/include" -I"$D/inc" -I"$inc" \
      "$R/python/src/core.cc" "$R/python/src/bitgen.cc" -DRANDTENSOR_VERSION='"0.1.0"' \
      "$D/$tree.a" "$D/libs/libhwy.so.1" -lpthread -Wl,--exclude-libs,ALL \
      -o "/tmp/mod-$tree/randtensor/_core$suf" > "$OUT/build-$tree.txt" 2>&1
}

# torch_ab RUNS TREE...: the module of each TREE (module), then RUNS
# interleaved rounds of pinned compare_torch_adapter.py at one thread, one
# per TREE, into $OUT/torch.txt (each run headed by its tree).
torch_ab() {
  local runs=$1 R=$D/../.. i t
  shift
  for t in "$@"; do module "$t"; done
  for i in $(seq "$runs"); do
    for t in "$@"; do
      echo "== $t, round $i"
      (cd "$R/benchmarks" && LD_LIBRARY_PATH=$D/libs PYTHONPATH=/tmp/mod-$t taskset -c 2 \
        python3 compare_torch_adapter.py --threads 1 --repeat 9)
    done
  done > "$OUT/torch.txt" 2>&1
}

# torch_runs RUNS: torch_ab of the one library $D/librandtensor.a (the
# module's build messages in $OUT/build-librandtensor.txt).
torch_runs() { torch_ab "$1" librandtensor; }
