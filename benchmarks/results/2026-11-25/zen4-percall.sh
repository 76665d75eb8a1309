#!/bin/bash
# usage: percall.sh RUNS BIN_A BIN_B ... ; prints ns per 16-element call, bits and uniform, interleaved
runs=$1; shift
for i in $(seq $runs); do
  for b in "$@"; do
    for d in bits uniform; do
      t=$([ $d = bits ] && echo uint32 || echo float32)
      g=$($b generate --sizes 16 --dist $d --dtype $t --repeat 300000 --out /dev/null 2>&1 | awk '/Gelem/{print $2}')
      printf "%s %s %.1f\n" "$b" "$d" "$(echo "16/$g" | bc -l)"
    done
  done
done
