#!/usr/bin/env bash
# Checks that randtensor reproduces cuRAND's device-API Philox4_32_10 bit for
# bit, through the state mapping of SPEC.md section 7:
#   curand_init(seed, subsequence, offset)  ==  state words
#   (offset/4) lo, (offset/4) hi, subsequence lo, subsequence hi, seed lo, seed hi
#   then skip offset mod 4 elements; curand() order is element order.
# Needs nvcc and a GPU. Usage: tools/curand_check/run.sh RANDTENSOR_CLI [WORKDIR]
set -euo pipefail
cli="$1"
work="${2:-$(mktemp -d)}"
here="$(cd "$(dirname "$0")" && pwd)"
nvcc -O2 -o "$work/curand_check" "$here/curand_check.cu"

n=1027
failures=0
cases=0
for seed in 0 42 0xdeadbeefcafef00d; do
  for subsequence in 0 1 12345 0x10000000007; do
    for offset in 0 1 2 3 4 5 1000003 0x200000003; do
      "$work/curand_check" "$seed" "$subsequence" "$offset" "$n" "$work/curand.bin"
      words=$(python3 - "$seed" "$subsequence" "$offset" <<'PY'
import sys
seed, sub, off = (int(a, 0) for a in sys.argv[1:])
m = 0xFFFFFFFF
print(",".join(str(w) for w in
      [(off // 4) & m, (off // 4) >> 32, sub & m, sub >> 32, seed & m, seed >> 32]))
PY
)
      skip=$(( offset % 4 ))
      "$cli" generate --sizes $(( n + skip )) --state "$words" --out "$work/randtensor.bin" > /dev/null
      cases=$(( cases + 1 ))
      if ! tail -c +$(( skip * 4 + 1 )) "$work/randtensor.bin" | cmp -s - "$work/curand.bin"; then
        echo "MISMATCH seed=$seed subsequence=$subsequence offset=$offset"
        failures=$(( failures + 1 ))
      fi
    done
  done
done
echo "curand_check: $cases cases of $n values, $failures mismatches"
[ "$failures" -eq 0 ]
