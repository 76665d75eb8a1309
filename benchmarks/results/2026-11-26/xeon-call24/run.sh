#!/bin/bash
# Device call 24 (2026-11-26, second session): every kind at this stop's
# final code (1ee6d95), AVX3 at 64 Ki on 1 thread (pinned) and 64 Mi on 16
# threads, 3 rounds; then AVX2 at 64 Ki on 1 thread, 3 runs.
# (The machine lines and the final uptime and tar now come from the helper:
# the same commands as ran.)
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
all_kinds 3 new
for r in 1 2 3; do MIN_TIME=0.2 bench new "/tmp/j/avx2-r$r.json" '^dist/AVX2/[^/]*/64Ki/threads:1/' 2; done
vs_bits table /tmp/j/avx2-r*.json
finish
