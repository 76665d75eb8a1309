#!/usr/bin/env bash
# The test suite under sanitizers, as CI runs it:
#   address  AddressSanitizer + UndefinedBehaviorSanitizer, every test that
#            runs this build's programs (not label source_only)
#   thread   ThreadSanitizer, the tests that run fills on several threads
# Usage: scripts/sanitize.sh [address|thread|all]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
python=/usr/bin/python3
[ -x "$python" ] || python="$(command -v python3)"

# The instrumented kernel units are the longest compiles of CI by far, and
# the regular suite runs every target, so each sanitizer build compiles a
# few (HWY_DISABLED_TARGETS: HWY_AVX3 = 2^8, HWY_SSE4 = 2^11, HWY_SSSE3 =
# 2^12; SCALAR, the fallback, is always there):
# - address: AVX2, AVX-512 and the scalar reference (SSE4 and SSSE3 are
#   under ASan and UBSan in the fuzzer's build, fuzz/CMakeLists.txt);
# - thread: AVX2 and SCALAR. Its tests look for races in what the threads
#   share (the writer's tiles and rows, the pool, the store choice), code
#   that is the same whatever kernel a tile calls; AVX2 is the widest target
#   every x86 CI machine runs, and AVX3's units took 60% of this build's
#   kernel time. (That each target's kernels keep to their range is checked
#   on every target, AVX3 included, by the guard-page and determinism tests,
#   natively and under ASan.)
# MPI is off: Open MPI's own allocations are not ours to leak-check.
address_targets="-DHWY_DISABLED_TARGETS=6144"
thread_targets="-DHWY_DISABLED_TARGETS=6400"

# RelWithDebInfo's -O2 with -g1 in place of -g: line tables and function
# names (inlined frames included) are all a sanitizer's stack trace reads;
# the variable and type information of -g made the instrumented kernel units
# take 10-20% longer to compile (docs/trust.md, "What CI runs").
debug_flags="-O2 -g1 -DNDEBUG"

configure_and_build() {  # build-dir, sanitizer flags, kernel targets, [target...] (default: all)
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="$debug_flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$debug_flags" \
    -DCMAKE_C_FLAGS="$2 $3" -DCMAKE_CXX_FLAGS="$2 $3" \
    -DCMAKE_EXE_LINKER_FLAGS="$2" -DCMAKE_SHARED_LINKER_FLAGS="$2" \
    -DRANDTENSOR_BUILD_BENCHMARKS=OFF -DRANDTENSOR_BUILD_PYTHON=OFF \
    -DRANDTENSOR_BUILD_STATS=OFF -DRANDTENSOR_BUILD_MPI=OFF -DRANDTENSOR_INSTALL=OFF \
    -DPython3_EXECUTABLE="$python"
  if [ $# -gt 3 ]; then
    cmake --build "$1" -j "$jobs" --target "${@:4}"
  else
    cmake --build "$1" -j "$jobs"
  fi
}

run_address() {
  # -fno-sanitize-address-use-after-scope: with it, GCC 12.2 at -O2 with
  # UBSan miscompiles the two-batch AVX2/SSE4 Philox rounds (wrong values, no
  # report: every AVX2 fill of 5-8 blocks failed its oracle test; clang 14
  # and GCC without that one check compute them right). Values are what
  # these tests check, so the check goes, not the kernel.
  configure_and_build build-asan \
    "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -fno-sanitize-address-use-after-scope" \
    "$address_targets"
  # halt_on_error: the first report fails the test; detect_leaks: the pool
  # is deliberately immortal, but nothing else may leak.
  # handle_segv=0: the guard-page tests expect the real SIGSEGV of a stray
  # access in a child process; ASan's handler would turn it into an exit code.
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:handle_segv=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  RANDTENSOR_UNDER_SANITIZER=address \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE source_only
}

# The tests that run fills on several threads, and the programs that hold
# them: only these are built under ThreadSanitizer (a test of a program not
# built is not registered, so a threaded test added elsewhere needs its
# program named here).
thread_tests='Layouts|Determinism|Targets|c_api|env_target|PoolStress'
thread_programs=(randtensor_correctness_tests randtensor_validation_tests
  randtensor_dlpack_tests randtensor_determinism_tests randtensor_thread_pool_test
  randtensor_c_api_test_static randtensor_c_api_test_shared randtensor_env_target_test)

run_thread() {
  configure_and_build build-tsan "-fsanitize=thread -fno-omit-frame-pointer" "$thread_targets" \
    "${thread_programs[@]}"
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 RANDTENSOR_UNDER_SANITIZER=thread \
    ctest --test-dir build-tsan --output-on-failure -j "$jobs" -R "$thread_tests"
}

case "${1:-all}" in
  address) run_address ;;
  thread) run_thread ;;
  all) run_address; run_thread ;;
  *) echo "usage: $0 [address|thread|all]" >&2; exit 2 ;;
esac
