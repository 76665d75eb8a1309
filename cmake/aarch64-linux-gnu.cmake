# Cross build for 64-bit Arm Linux with Debian's cross toolchain
# (g++-aarch64-linux-gnu) and arm64 multiarch packages (libhwy-dev:arm64,
# libgtest-dev:arm64; scripts/install-deps.sh arm64 installs them):
#
#   cmake -B build-arm -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#
# Test programs run through qemu-aarch64-static (CMAKE_CROSSCOMPILING_EMULATOR:
# CTest and gtest_discover_tests prepend it); QEMU_CPU picks the emulated CPU
# (scripts/arm64-test.sh, docs/arm.md).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Multiarch: arm64 libraries and their CMake packages live in
# /usr/lib/aarch64-linux-gnu, headers in the shared /usr/include (which the
# cross compiler searches after its own). Programs (python3, pkg-config) are
# the build machine's.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# No -L /usr/aarch64-linux-gnu (QEMU_LD_PREFIX): the programs load arm64
# libraries from /lib/aarch64-linux-gnu (libc6:arm64, which libhwy1:arm64
# brings), and the loader must come from that same libc6:arm64
# (/lib/ld-linux-aarch64.so.1). The cross toolchain's loader is an older
# build of glibc whose internal layout differs: with it, the second
# pthread_create loops forever in glibc's stack cache.
find_program(RANDTENSOR_QEMU_AARCH64 qemu-aarch64-static)
if(RANDTENSOR_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${RANDTENSOR_QEMU_AARCH64})
endif()
