#!/bin/bash
# Device call 28, second command (same warm machine): run.sh's torch_ab
# again, after its head module failed to build (the static library was
# carried as shipped.a, not head.a: first/build-head.txt).
cd "$(dirname "$0")"; D=$PWD
. "$D/../../benchmarks/device_vs_bits.sh"
torch_ab 3 head ceil
finish
