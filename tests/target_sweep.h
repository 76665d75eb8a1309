// Which targets the tests' sweeps over targets include.
#ifndef RANDTENSOR_TESTS_TARGET_SWEEP_H_
#define RANDTENSOR_TESTS_TARGET_SWEEP_H_

#include <cstdlib>
#include <cstring>

#include "hwy/targets.h"

namespace rt_test {

// Whether the sweeps over every supported target include target `name`:
// all of them, except those named in RANDTENSOR_TEST_SKIP_TARGETS (names
// separated by commas). scripts/arm64-test.sh names NEON and SCALAR there
// on its emulated SVE CPUs: the SVE vector length changes no code of
// those two targets, and its NEON CPU sweeps them, so there they would
// repeat that run (at the emulator's slowest); it also names SVE or SVE2,
// in turns (the script says why). Checks that are not sweeps
// (a reference target, what "auto" picks) ignore it.
inline bool Swept(const char* name) {
  const char* skip = std::getenv("RANDTENSOR_TEST_SKIP_TARGETS");
  if (skip == nullptr) return true;
  const size_t n = std::strlen(name);
  for (const char* p = skip; *p != '\0';) {
    const char* end = std::strchr(p, ',');
    const size_t len = end == nullptr ? std::strlen(p) : static_cast<size_t>(end - p);
    if (len == n && std::strncmp(p, name, n) == 0) return false;
    if (end == nullptr) break;
    p = end + 1;
  }
  return true;
}

// Whether the sweeps include a kernel table (src/kernels.h): its target is
// one this CPU runs, and Swept.
template <class KernelTable>
bool SweepsTable(const KernelTable& table) {
  return (table.hwy_target & hwy::SupportedTargets()) != 0 && Swept(table.name);
}

}  // namespace rt_test

#endif  // RANDTENSOR_TESTS_TARGET_SWEEP_H_
