#!/usr/bin/env bash
# Cross-builds randtensor for 64-bit Arm (Debian's g++-aarch64-linux-gnu and
# arm64 multiarch packages: scripts/install-deps.sh arm64) and runs its C++
# tests under qemu-aarch64-static on NEON and on SVE/SVE2 at several vector
# lengths (docs/arm.md).
#
#   scripts/arm64-test.sh [--full] [--host-cli PATH] [build-dir]   (default build-arm-test)
#
# On every emulated CPU:
#   - the test programs (each once, all its tests in one process: starting a
#     process under qemu costs ~0.15 s, and one per test would be most of the
#     run). NEON runs every program; the SVE CPUs run the programs that sweep
#     every compiled target against the oracle and the references
#     (SVE_PROGRAMS below); --full runs every program everywhere;
#   - each target the CPU supports, forced through RANDTENSOR_TARGET
#     (randtensor_env_target_test --expect-active, what ctest's
#     env_target.forces_each_compiled does by re-executing itself);
#   - with a host (x86) build of the CLI (--host-cli, default
#     build-test/tools/randtensor when it exists), every kind the CLI writes,
#     on every supported target, byte for byte against the host's output.
#
# Left out, because they re-execute their own program, which the kernel can
# only do for an Arm program when binfmt_misc hands it to qemu (never in a
# container): GoogleTest's "threadsafe" death tests (REEXEC_TESTS below,
# checks of layouts that overflow the address space, which never reach a
# kernel) and ctest's env_target.forces_each_compiled (done here per target
# instead). Where binfmt_misc has qemu-aarch64, they run too.
set -euo pipefail
cd "$(dirname "$0")/.."

full=0 host_cli="" build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --full) full=1 ;;
    --host-cli) host_cli="$2"; shift ;;
    -*) echo "arm64-test.sh: unknown option '$1'" >&2; exit 2 ;;
    *) build="$1" ;;
  esac
  shift
done
build="${build:-build-arm-test}"
if [ -z "$host_cli" ] && [ -x build-test/tools/randtensor ]; then host_cli=build-test/tools/randtensor; fi

# -cpu settings. qemu's user mode starts a process at 512-bit SVE whatever
# the CPU's maximum, so 2048 bits needs the default length raised (bytes).
CPUS=(
  "max,sve=off"
  "max,sve128=on"
  "max,sve256=on"
  "max,sve512=on"
  "max,sve2048=on,sve-default-vector-length=256"
)
# Programs whose tests force every compiled target and compare with the
# oracle (Random123), the known answers and the reference model's recorded
# cases, plus the guard-page and determinism suites (stores at every tail
# length: SVE's predicated tails). The validation, DirectML, DLPack, C API,
# engine and thread-pool suites check arguments and plumbing that no target
# changes: NEON runs them once.
SVE_PROGRAMS='^randtensor_(correctness_tests|kernels_test|distributions_test|replay_test|fma_test|region_scale_test|determinism_tests|guard_tests)$'
# At 2048 bits qemu emulates each vector operation lane by lane: the kernel
# test alone runs for many minutes there. The correctness suite (every
# target against the oracle and the known answers) and the CLI outputs
# cover that length; --full runs the rest too.
SVE2048_PROGRAMS='^randtensor_(correctness_tests|fma_test)$'
REEXEC_TESTS='Layouts.HugeTaskElementsMeanOneTask:NativeValidationCrash.*:*DirectMlBinding.OutputRangePastTheTopOfTheAddressSpaceIsRejected'

jobs="$(nproc)"
start=$SECONDS
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DRANDTENSOR_WERROR=ON -DRANDTENSOR_INSTALL=OFF \
  -DRANDTENSOR_BUILD_TESTS=ON -DRANDTENSOR_BUILD_BENCHMARKS=OFF \
  -DRANDTENSOR_BUILD_PYTHON=OFF -DRANDTENSOR_BUILD_STATS=OFF -DRANDTENSOR_BUILD_MPI=OFF > /dev/null
cmake --build "$build" -j "$jobs"
echo "arm64-test: cross build $((SECONDS - start)) s"

# The loader must match /lib/aarch64-linux-gnu's glibc (cmake/aarch64-linux-gnu.cmake).
unset QEMU_LD_PREFIX
qemu=(qemu-aarch64-static)
if [ "$(cat /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null | head -1)" = enabled ]; then
  REEXEC_TESTS=""
fi

# The vector length each CPU setting really gives (prctl PR_SVE_GET_VL).
cat > "$build/sve_vl.c" <<'EOF'
#include <stdio.h>
#include <sys/prctl.h>
int main(void) {
  int vl = prctl(51 /* PR_SVE_GET_VL */);
  printf("%d\n", vl < 0 ? 0 : (vl & 0xffff) * 8);
  return 0;
}
EOF
aarch64-linux-gnu-gcc -O2 -o "$build/sve_vl" "$build/sve_vl.c"

# Test programs, from CTest's own list: each executable whose tests
# GoogleTest discovered (--gtest_filter in the command), and the other
# tests by name.
ctest --test-dir "$build" --show-only=json-v1 > "$build/tests.json"
mapfile -t gtest_programs < <(python3 - "$build/tests.json" <<'EOF'
import json, sys
seen = []
for t in json.load(open(sys.argv[1]))["tests"]:
    cmd = t.get("command", [])
    if len(cmd) > 2 and any(a.startswith("--gtest_filter=") for a in cmd[2:]) and cmd[1] not in seen:
        seen.append(cmd[1])
print("\n".join(seen))
EOF
)
mapfile -t other_tests < <(python3 - "$build/tests.json" <<'EOF'
import json, sys
for t in json.load(open(sys.argv[1]))["tests"]:
    cmd = t.get("command", [])
    if not any(a.startswith("--gtest_filter=") for a in cmd[2:]) and t["name"] != "env_target.forces_each_compiled":
        print(t["name"])
EOF
)

# Host outputs of the CLI cases (file digest and the printed state).
CLI_CASES=(
  "--sizes 100003"
  "--sizes 33,257 --strides 300,1 --seed 7"
  "--sizes 65537 --dist uniform --dtype float32 --offset 3"
  "--sizes 4099 --dist uniform --dtype bfloat16 --low -2 --high 5"
  "--sizes 8191 --dist uniform --dtype float16"
  "--sizes 30001 --dist uniform --dtype float64 --seed 0x123456789"
  "--sizes 65537 --dist normal --dtype float32 --mean 1 --std 3"
  "--sizes 20001 --dist normal --dtype float64"
  "--sizes 9000 --dist normal --dtype float16"
  "--sizes 70001 --dist bernoulli --p 0.3 --dtype uint8"
  "--sizes 50001 --dist integers --low -5 --high 1000003 --dtype int64"
)
cli_digest() {  # runner... -- case
  local out="$build/cli.out" state
  state="$("$@" --out "$out" 2>&1)" || { echo "FAILED($?): $state"; return; }
  echo "$(sha256sum < "$out" | cut -c1-16) ${state//$'\n'/ }"
}
declare -A host_digest
if [ -n "$host_cli" ]; then
  for c in "${CLI_CASES[@]}"; do
    # shellcheck disable=SC2086
    host_digest["$c"]="$(cli_digest "$host_cli" generate $c)"
  done
else
  echo "arm64-test: no host CLI (build-test/tools/randtensor or --host-cli): outputs are not compared with x86's"
fi

failed=()
for cpu in "${CPUS[@]}"; do
  export QEMU_CPU="$cpu"
  t0=$SECONDS
  vl="$("${qemu[@]}" "$build/sve_vl")"
  targets="$("${qemu[@]}" "$build/tools/randtensor" targets)"
  echo "== -cpu $cpu: SVE vector length $vl bits; randtensor targets:"
  sed 's/^/     /' <<< "$targets"
  for program in "${gtest_programs[@]}"; do
    name="$(basename "$program")"
    if [ "$full" = 0 ] && [ "$cpu" != "max,sve=off" ] && ! [[ "$name" =~ $SVE_PROGRAMS ]]; then
      continue
    fi
    if [ "$full" = 0 ] && [[ "$cpu" == *sve2048* ]] && ! [[ "$name" =~ $SVE2048_PROGRAMS ]]; then
      continue
    fi
    log="$build/$name.${cpu//[,=]/_}.log"
    if (cd "$(dirname "$program")" &&
        "${qemu[@]}" "$program" ${REEXEC_TESTS:+--gtest_filter="-$REEXEC_TESTS"}) > "$log" 2>&1; then
      echo "   ok   $name ($(grep -E '^\[  PASSED  \]' "$log" | sed 's/.*\] //' || true))"
    else
      echo "   FAIL $name: $log"
      # (|| true: head closing the pipe early must not end the script)
      grep -E '^\[  FAILED  \] .*[^)]$|^not ok' "$log" | sort -u | head -20 | sed 's/^/        /' || true
      failed+=("$cpu $name")
    fi
  done
  if [ "$cpu" = "max,sve=off" ] || [ "$full" = 1 ]; then
    if ! ctest --test-dir "$build" --output-on-failure -R "^($(IFS='|'; echo "${other_tests[*]//./\\.}"))\$" > "$build/other.log" 2>&1; then
      echo "   FAIL ctest ${other_tests[*]}: $build/other.log"; failed+=("$cpu ctest")
    else
      echo "   ok   ctest: ${other_tests[*]}"
    fi
  fi
  # Every supported target, forced by name: the environment variable path,
  # and the CLI's bytes against the host's.
  for target in $(awk '$2 == "supported" { print $1 }' <<< "$targets"); do
    if RANDTENSOR_TARGET="$target" "${qemu[@]}" "$build/tests/randtensor_env_target_test" \
         --expect-active="$target" > "$build/env_target.log" 2>&1; then
      result="forced ok"
    else
      result="FORCING FAILED"; failed+=("$cpu RANDTENSOR_TARGET=$target")
      head -20 "$build/env_target.log" | sed 's/^/        /'
    fi
    if [ -n "$host_cli" ]; then
      same=0
      for c in "${CLI_CASES[@]}"; do
        # shellcheck disable=SC2086
        got="$(cli_digest "${qemu[@]}" "$build/tools/randtensor" generate --target "$target" $c)"
        if [ "$got" = "${host_digest[$c]}" ]; then
          same=$((same + 1))
        else
          echo "   FAIL $target: randtensor generate $c"
          echo "        x86: ${host_digest[$c]}"; echo "        arm: $got"
          failed+=("$cpu $target generate $c")
        fi
      done
      result="$result, $same/${#CLI_CASES[@]} CLI outputs equal to x86's"
    fi
    echo "   $target: $result"
  done
  echo "   ($((SECONDS - t0)) s)"
done

echo "arm64-test: $((SECONDS - start)) s in all"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'arm64-test: FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "arm64-test: every run passed"
