# Sourced by the device scripts that measure distributions against bits
# (benchmarks/results/2026-11-26/xeon-call*/run.sh, run from .carry/nN as
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
ab_rounds() {
  local rounds=$1 kinds=$2 targets=$3 r b
  shift 3
  for r in $(seq "$rounds"); do
    for b in "$@"; do
      bench "$b" "/tmp/j/r$r-$b-1t.json" "^dist/($targets)/(bits|$kinds)/64Ki/threads:1/" 2
      bench "$b" "/tmp/j/r$r-$b-16t.json" "^dist/AVX3/(bits|$kinds)/65536Ki/threads:16/"
      vs_bits row "$b" "/tmp/j/r$r-$b-1t.json" "/tmp/j/r$r-$b-16t.json" --kinds "$kinds"
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
