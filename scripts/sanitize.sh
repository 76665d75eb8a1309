#!/usr/bin/env bash
# The test suite under sanitizers, as CI runs it:
#   address  AddressSanitizer + UndefinedBehaviorSanitizer, with clang: every
#            test that runs this build's programs (not label source_only),
#            kernels for SCALAR and the widest x86 target the CPU runs
#            (AVX3 or AVX2). The same build is
#            instrumented for libFuzzer (-fsanitize=fuzzer-no-link) and
#            builds the fuzzer, build-asan/fuzz/randtensor_fuzz, which CI
#            runs with fuzz/run.sh --binary: one instrumented compile of the
#            kernels, the longest compiles of CI, serves both.
#   thread   ThreadSanitizer, with GCC: the tests that run fills on several
#            threads
# Usage: scripts/sanitize.sh [address|thread|all]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/cpu.sh
jobs="$(nproc)"
python=/usr/bin/python3
[ -x "$python" ] || python="$(command -v python3)"

# The thread build compiles the kernels for AVX2 and SCALAR only
# (RANDTENSOR_DISABLED_TARGETS; SCALAR, the fallback, is always there). Its
# tests look for races in what the threads share (the writer's tiles and
# rows, the pool, the store choice), code that is the same whatever kernel
# a tile calls; AVX2 is the widest target every x86 CI machine runs, and
# AVX3's units took 60% of this build's kernel time. (That each target's
# kernels keep to their range is checked on every target, AVX3 included,
# by the guard-page and determinism tests, natively and under ASan.)
# MPI is off: Open MPI's own allocations are not ours to leak-check.
thread_targets="AVX3;SSE4"

# RelWithDebInfo's -O2 with line tables in place of -g (-g1 for GCC, clang's
# -gline-tables-only): line tables and function names, inlined frames
# included, are all a sanitizer's stack trace reads; the variable and type
# information of -g made the instrumented kernel units take 10-35% longer to
# compile (docs/trust.md, "What CI runs").
configure_and_build() {  # build-dir, -O/-g flags, sanitizer flags, [cmake option...] [-- target...]
  local dir="$1" debug_flags="$2" flags="$3" options=() targets=()
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do options+=("$1"); shift; done
  [ $# -eq 0 ] || { shift; targets=(--target "$@"); }
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="$debug_flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$debug_flags" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
    -DRANDTENSOR_BUILD_BENCHMARKS=OFF -DRANDTENSOR_BUILD_PYTHON=OFF \
    -DRANDTENSOR_BUILD_STATS=OFF -DRANDTENSOR_BUILD_MPI=OFF -DRANDTENSOR_INSTALL=OFF \
    -DPython3_EXECUTABLE="$python" "${options[@]}"
  cmake --build "$dir" -j "$jobs" "${targets[@]}"
}

run_address() {
  # clang, as libFuzzer needs (and its UBSan checks more: the enum loads
  # and 128-bit overflows of docs/trust.md, "What clang's UBSan found"). A GCC
  # 12.2 build with both sanitizers needs -fno-sanitize-address-use-after-scope:
  # with that check, GCC at -O2 with UBSan miscompiles the two-batch
  # AVX2/SSE4 Philox rounds (wrong values, no report; docs/trust.md,
  # "Compiler problems the checks found"). HWY_BROKEN_EMU128: the same fallback target
  # as the library built with GCC, Debian's compiler: SCALAR. Highway's
  # fallback under clang would be EMU128, which no GCC build has and whose
  # loops over arrays of lanes, instrumented by ASan, took most of this
  # build's time (docs/trust.md, "What CI runs").
  # -fsanitize-link-c++-runtime -lstdc++: the C API's C test programs link
  # UBSan's C++ part (and the C++ library it reads type information from),
  # which the C++ library's checks (vptr, function types) call.
  local flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"
  # The kernel units leave out four of UBSan's checks: pointer-overflow,
  # alignment, null and object-size instrument every vector load and store
  # and doubled the units' compile (uniform: 80 CPU s with them, 48
  # without). ASan still checks that each access lands inside its object,
  # the vector loads and stores are unaligned ones unless the code aligned
  # them, and the rest of the library and the tests keep all the checks.
  local kernel_checks_left_out="-fno-sanitize=pointer-overflow,alignment,null,object-size"
  # Kernels for SCALAR and the widest target this CPU runs, the one the
  # library picks here: AVX3 where the CPU has the AVX-512 parts Highway's
  # AVX3 needs (F, VL, DQ, BW), else AVX2. The x86 targets' instrumented
  # kernel units are most of this build's compile (docs/trust.md, "What CI
  # runs"), so the others are left out: their loads and stores are the
  # same Highway code at other lane counts, which the suite runs natively
  # on every compiled target (values, guard pages at every tail length),
  # and CI's hosts with and without AVX-512 take AVX3 and AVX2 in turns.
  # SSE4 is never here.
  local disabled="SSE4;AVX3"
  cpu_runs_avx3 && disabled="SSE4;AVX2"
  CC=clang-14 CXX=clang++-14 configure_and_build build-asan "-O2 -gline-tables-only -DNDEBUG" \
    "$flags -DHWY_BROKEN_EMU128=1" -DRANDTENSOR_BUILD_FUZZERS=ON \
    -DRANDTENSOR_DISABLED_TARGETS="$disabled" -DRANDTENSOR_KERNEL_FLAGS="$kernel_checks_left_out" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags -fsanitize-link-c++-runtime -lstdc++"
  # halt_on_error: the first report fails the test; detect_leaks: the pool
  # is deliberately immortal, but nothing else may leak.
  # handle_segv=0: the guard-page tests expect the real SIGSEGV of a stray
  # access in a child process; ASan's handler would turn it into an exit code.
  # The fuzzer's corpus replay runs here; its campaign is fuzz/run.sh's.
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:handle_segv=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  RANDTENSOR_UNDER_SANITIZER=address \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE source_only -E '^fuzz\.short_campaign$'
}

# The tests that run fills on several threads, and the programs that hold
# them: only these are built under ThreadSanitizer (a test of a program not
# built is not registered, so a threaded test added elsewhere needs its
# program named here).
thread_tests='Layouts|Determinism|Targets|c_api|env_target|PoolStress|^validation$|^dlpack$'
thread_programs=(randtensor_correctness_tests randtensor_validation_tests
  randtensor_dlpack_tests randtensor_determinism_tests randtensor_thread_pool_test
  randtensor_c_api_test_static randtensor_c_api_test_shared randtensor_env_target_test)

run_thread() {
  configure_and_build build-tsan "-O2 -g1 -DNDEBUG" "-fsanitize=thread -fno-omit-frame-pointer" \
    -DRANDTENSOR_DISABLED_TARGETS="$thread_targets" -- "${thread_programs[@]}"
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 RANDTENSOR_UNDER_SANITIZER=thread \
    ctest --test-dir build-tsan --output-on-failure -j "$jobs" -R "$thread_tests"
}

case "${1:-all}" in
  address) run_address ;;
  thread) run_thread ;;
  all) run_address; run_thread ;;
  *) echo "usage: $0 [address|thread|all]" >&2; exit 2 ;;
esac
