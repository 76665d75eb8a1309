# Shell functions about this machine's CPU, sourced by scripts/test.sh and
# scripts/sanitize.sh.

# True when this CPU runs Highway's AVX3 target: x86-64 with the AVX-512
# parts it needs (F, VL, DQ, BW).
cpu_runs_avx3() {
  [ "$(uname -m)" = x86_64 ] || return 1
  local flag
  for flag in avx512f avx512vl avx512dq avx512bw; do
    grep -qw "$flag" /proc/cpuinfo || return 1
  done
}
