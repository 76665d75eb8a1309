#!/usr/bin/env bash
# Cross-builds randtensor for 64-bit Arm (Debian's g++-aarch64-linux-gnu and
# arm64 multiarch packages: scripts/install-deps.sh arm64) and runs its C++
# tests under qemu-aarch64-static on NEON and on SVE/SVE2 at several vector
# lengths (docs/arm.md).
#
#   scripts/arm64-test.sh [--full] [--build-only] [--host-cli PATH] [build-dir]
#                                                   (default build-arm-test)
#
# --build-only: the cross build alone (CI runs it while the x86 packages
# install, and the emulated runs after scripts/test.sh has built the host CLI).
#
# On every emulated CPU:
#   - the test programs (each once, all its tests in one process: starting a
#     process under qemu costs ~0.15 s, and one per test would be most of the
#     run). NEON runs every program; the SVE CPUs run the programs that sweep
#     the targets against the oracle and the references (SVE_PROGRAMS
#     below), their sweeps over the SVE targets (NEON and SCALAR are swept
#     on the NEON CPU); --full runs every program on every target everywhere;
#   - each target the CPU supports, forced through RANDTENSOR_TARGET
#     (randtensor_env_target_test --expect-active, what ctest's
#     env_target.forces_each_compiled does by re-executing itself);
#   - with a host (x86) build of the CLI (--host-cli, default
#     build-test/tools/randtensor when it exists), every kind the CLI writes,
#     on every supported target, byte for byte against the host's output.
# These runs are independent jobs, run `nproc` at a time;
# the report is printed when all have finished, in a fixed order.
#
# Left out, because they re-execute their own program, which the kernel can
# only do for an Arm program when binfmt_misc hands it to qemu (never in a
# container): GoogleTest's "threadsafe" death tests (REEXEC_TESTS below,
# checks of layouts that overflow the address space, which never reach a
# kernel) and ctest's env_target.forces_each_compiled (done here per target
# instead). Where binfmt_misc has qemu-aarch64, they run too.
set -euo pipefail
cd "$(dirname "$0")/.."

full=0 build_only=0 host_cli="" build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --full) full=1 ;;
    --build-only) build_only=1 ;;
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
# At 256 and 512 bits the kernel test's sweep of every kind over every count,
# head and alignment (Kernels.GenerateContiguousEqualsTheOracle) takes six to
# seven minutes under qemu, the double-lane transforms most of it: it runs
# at 128 bits (and on NEON); at 256 and 512 bits every kind is still checked
# on every target by distributions_test (the reference model's cases) and
# correctness_tests (the oracle), tails by determinism_tests and guard_tests,
# and the rest of kernels_test runs. --full runs it everywhere.
SVE_WIDE_SKIP='Kernels.GenerateContiguousEqualsTheOracle'
# On the SVE CPUs the programs' sweeps over targets leave out NEON and
# SCALAR (RANDTENSOR_TEST_SKIP_TARGETS, tests/target_sweep.h): no code of
# theirs depends on the SVE vector length, the NEON CPU sweeps both, and
# each SVE CPU still forces both below (the CLI outputs). At 128 and 256
# bits they also take SVE and SVE2 in turns, each beside the fixed-length
# target there: SVE with SVE2_128 at 128 bits (SVE2's instructions where
# the kernel test's sweep of every count runs), SVE2 with SVE_256 at 256;
# 512 bits sweeps both, 2048 SVE2 alone (its two programs compare each
# target with the oracle, not with the other targets). So each is swept at
# a length of at most 256 bits and at one of at least 512. SVE and SVE2
# share every line that depends on the vector length (tails, blocks per
# vector, the spill of rows) and differ in a few instructions of the
# Philox round and its products, which any length checks; every SVE CPU
# still forces both with the CLI's outputs against x86's. --full sweeps
# all.
sve_cpu_skip_targets() {  # cpu
  case "$1" in
    *sve128=on*) echo "NEON,SCALAR,SVE2" ;;
    *sve512=on*) echo "NEON,SCALAR" ;;
    *) echo "NEON,SCALAR,SVE" ;;
  esac
}
REEXEC_TESTS='Layouts.HugeTaskElementsMeanOneTask:NativeValidationCrash.*:*DirectMlBinding.OutputRangePastTheTopOfTheAddressSpaceIsRejected'

jobs="$(nproc)"
start=$SECONDS
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DRANDTENSOR_WERROR=ON -DRANDTENSOR_INSTALL=OFF \
  -DRANDTENSOR_BUILD_TESTS=ON -DRANDTENSOR_BUILD_BENCHMARKS=OFF \
  -DRANDTENSOR_BUILD_PYTHON=OFF -DRANDTENSOR_BUILD_STATS=OFF -DRANDTENSOR_BUILD_MPI=OFF > /dev/null
cmake --build "$build" -j "$jobs"
echo "arm64-test: cross build $((SECONDS - start)) s"
[ "$build_only" = 0 ] || exit 0

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
# tests by name. A program whose tests ctest also runs with an environment
# of their own (the DirectML tests through the operator,
# RANDTENSOR_DML_VIA_OPERATOR=1) runs those tests a second time with it:
# one line per program and environment, "program<TAB>environment<TAB>its
# tests" (the tests only where there is an environment).
ctest --test-dir "$build" --show-only=json-v1 > "$build/tests.json"
mapfile -t gtest_programs < <(python3 - "$build/tests.json" <<'EOF'
import json, sys
runs = {}  # (program, environment) -> test names
for t in json.load(open(sys.argv[1]))["tests"]:
    cmd = t.get("command", [])
    names = [a[len("--gtest_filter="):] for a in cmd[2:] if a.startswith("--gtest_filter=")]
    if len(cmd) > 2 and names:
        env = " ".join(v for p in t.get("properties", []) if p["name"] == "ENVIRONMENT"
                       for v in p["value"])
        runs.setdefault((cmd[1], env), []).extend(names)
for (program, env), names in runs.items():
    print("\t".join([program, env, ":".join(names) if env else ""]))
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
cli_digest() {  # output-file runner... -- case
  local out="$1" state
  shift
  state="$("$@" --out "$out" 2>&1)" || { echo "FAILED($?): $state"; return; }
  echo "$(sha256sum < "$out" | cut -c1-16) ${state//$'\n'/ }"
}

# The emulated runs are independent jobs, run $jobs at a time (xargs -P); each
# writes its own log and its lines of the report into $jobdir, and the report
# is printed afterwards in the fixed order below (CPU by CPU: the programs,
# the other ctest tests, then each target).
jobdir="$build/arm64-jobs"
rm -rf "$jobdir"
mkdir -p "$jobdir"
printf '%s\n' "${CLI_CASES[@]}" > "$jobdir/cli_cases"
printf '%s\n' "${other_tests[@]}" > "$jobdir/other_tests"
if [ -n "$host_cli" ]; then
  for c in "${CLI_CASES[@]}"; do
    # shellcheck disable=SC2086
    cli_digest "$build/cli.out" "$host_cli" generate $c
  done > "$jobdir/cli_host"
else
  echo "arm64-test: no host CLI (build-test/tools/randtensor or --host-cli): outputs are not compared with x86's"
fi

# One job: $jobdir/N.spec holds its CPU, kind (program, ctest or target) and
# argument; it writes N.txt (its report lines), N.fail (one line per failure)
# and N.done (written last: a job without it did not finish, which fails).
run_job() {  # N
  local n="$1" cpu kind arg tag out t0=$SECONDS
  { read -r cpu; read -r kind; read -r arg; } < "$jobdir/$n.spec"
  export QEMU_CPU="$cpu"
  tag="${cpu//[,=]/_}"
  out="$jobdir/$n"
  : > "$out.fail"
  case "$kind" in
    program)
      local name log program envs tests
      IFS=$'\t' read -r program envs tests <<< "$arg"
      name="$(basename "$program")"
      log="$build/$name.$tag${envs:+.env}.log"
      local skip="$REEXEC_TESTS" skip_targets=""
      if [ "$full" = 0 ] && [ "$cpu" != "max,sve=off" ]; then skip_targets="$(sve_cpu_skip_targets "$cpu")"; fi
      if [ "$full" = 0 ] && [ "$name" = randtensor_kernels_test ] &&
         [[ "$cpu" == *sve256=on* || "$cpu" == *sve512=on* ]]; then
        skip="${skip:+$skip:}$SVE_WIDE_SKIP"
      fi
      local filter="$tests${skip:+-$skip}"
      # shellcheck disable=SC2086
      if (cd "$(dirname "$program")" && export RANDTENSOR_TEST_SKIP_TARGETS="$skip_targets" &&
          env $envs $qemu_cmd "$program" ${filter:+--gtest_filter="$filter"}) > "$log" 2>&1; then
        echo "   ok   $name${envs:+ with $envs} ($(grep -E '^\[  PASSED  \]' "$log" | sed 's/.*\] //'), $((SECONDS - t0)) s${skip_targets:+, sweeps without $skip_targets})"
      else
        echo "   FAIL $name: $log"
        grep -E '^\[  FAILED  \] .*[^)]$|^not ok' "$log" | sort -u | head -20 | sed 's/^/        /'
        echo "$cpu $name" >> "$out.fail"
      fi
      ;;
    ctest)
      if ctest --test-dir "$build" --output-on-failure -R "$arg" > "$build/other.log" 2>&1; then
        echo "   ok   ctest: $(paste -sd' ' "$jobdir/other_tests") ($((SECONDS - t0)) s)"
      else
        echo "   FAIL ctest: $build/other.log"
        echo "$cpu ctest" >> "$out.fail"
      fi
      ;;
    target)
      # The environment variable path, and the CLI's bytes against the host's.
      local log="$build/env_target.$tag.$arg.log" result same=0 i=0 c got
      if RANDTENSOR_TARGET="$arg" $qemu_cmd "$build/tests/randtensor_env_target_test" \
           --expect-active="$arg" > "$log" 2>&1; then
        result="forced ok"
      else
        result="FORCING FAILED"
        echo "$cpu RANDTENSOR_TARGET=$arg" >> "$out.fail"
        head -20 "$log" | sed 's/^/        /'
      fi
      if [ -f "$jobdir/cli_host" ]; then
        while IFS= read -r c; do
          i=$((i + 1))
          # shellcheck disable=SC2086
          got="$(cli_digest "$jobdir/$n.cli.out" $qemu_cmd "$build/tools/randtensor" generate --target "$arg" $c)"
          if [ "$got" = "$(sed -n "${i}p" "$jobdir/cli_host")" ]; then
            same=$((same + 1))
          else
            echo "   FAIL $arg: randtensor generate $c"
            echo "        x86: $(sed -n "${i}p" "$jobdir/cli_host")"; echo "        arm: $got"
            echo "$cpu $arg generate $c" >> "$out.fail"
          fi
        done < "$jobdir/cli_cases"
        rm -f "$jobdir/$n.cli.out"
        result="$result, $same/$i CLI outputs equal to x86's"
      fi
      echo "   $arg: $result ($((SECONDS - t0)) s)"
      ;;
  esac > "$out.txt" 2>&1
  echo "$((SECONDS - t0))" > "$out.done"
}

# The job list, in report order. The CPU settings' vector lengths and target
# lists come first (short runs, one after another).
jobs_total=0
add_job() {  # cpu kind arg
  printf '%s\n' "$@" > "$jobdir/$jobs_total.spec"
  jobs_total=$((jobs_total + 1))
}
cpu_first=() cpu_end=() header=()
for ci in "${!CPUS[@]}"; do
  cpu="${CPUS[$ci]}"
  export QEMU_CPU="$cpu"
  vl="$("${qemu[@]}" "$build/sve_vl")"
  targets="$("${qemu[@]}" "$build/tools/randtensor" targets)"
  header[ci]="$(echo "== -cpu $cpu: SVE vector length $vl bits; randtensor targets:"; sed 's/^/     /' <<< "$targets")"
  cpu_first[ci]=$jobs_total
  for program in "${gtest_programs[@]}"; do
    name="$(basename "${program%%$'\t'*}")"
    if [ "$full" = 0 ] && [ "$cpu" != "max,sve=off" ] && ! [[ "$name" =~ $SVE_PROGRAMS ]]; then
      continue
    fi
    if [ "$full" = 0 ] && [[ "$cpu" == *sve2048* ]] && ! [[ "$name" =~ $SVE2048_PROGRAMS ]]; then
      continue
    fi
    add_job "$cpu" program "$program"
  done
  if [ "$cpu" = "max,sve=off" ] || [ "$full" = 1 ]; then
    add_job "$cpu" ctest "^($(IFS='|'; echo "${other_tests[*]//./\\.}"))\$"
  fi
  for target in $(awk '$2 == "supported" { print $1 }' <<< "$targets"); do
    add_job "$cpu" target "$target"
  done
  cpu_end[ci]=$jobs_total
done
unset QEMU_CPU

# The test programs start first (the long jobs), then the rest.
t0=$SECONDS
export build jobdir full REEXEC_TESTS SVE_WIDE_SKIP qemu_cmd="${qemu[*]}"
export -f run_job cli_digest sve_cpu_skip_targets
for kind in program ctest target; do
  for ((n = 0; n < jobs_total; n++)); do
    if [ "$(sed -n 2p "$jobdir/$n.spec")" = "$kind" ]; then echo "$n"; fi
  done
done | xargs -n 1 -P "$jobs" bash -c 'run_job "$1"' run_job || true
echo "arm64-test: $jobs_total emulated jobs, $jobs at a time: $((SECONDS - t0)) s"

failed=()
for ci in "${!CPUS[@]}"; do
  echo "${header[ci]}"
  for ((n = cpu_first[ci]; n < cpu_end[ci]; n++)); do
    cat "$jobdir/$n.txt" 2>/dev/null || true
    if [ -f "$jobdir/$n.done" ]; then
      mapfile -t job_failed < "$jobdir/$n.fail"
      failed+=("${job_failed[@]}")
    else
      echo "   FAIL job $n ($(paste -sd' ' "$jobdir/$n.spec")) did not finish"
      failed+=("${CPUS[$ci]} job $n did not finish")
    fi
  done
done

echo "arm64-test: $((SECONDS - start)) s in all"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'arm64-test: FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "arm64-test: every run passed"
