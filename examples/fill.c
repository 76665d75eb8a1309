/* C: fill a 2 x 5 tensor from seed 42 and report which SIMD target ran. */
#include <stdio.h>

#include "randtensor/randtensor.h"

int main(void) {
  uint32_t state[6] = {0, 0, 0, 0, 42, 0}; /* counter words 0-3, key words 0-1 */
  uint32_t out[10];
  const int64_t sizes[2] = {2, 5};
  randtensor_fill_info info;
  if (randtensor_fill_ex(out, sizeof out, 0, RANDTENSOR_UINT32, 2, sizes, NULL, state, state,
                         NULL, &info) != RANDTENSOR_OK) {
    fprintf(stderr, "fill failed: %s\n", randtensor_last_error());
    return 1;
  }
  printf("out[0] = 0x%08x, counter now %u, target %s\n", out[0], state[0], info.target);
  return state[0] == 3 ? 0 : 1; /* ceil(10 / 4) blocks consumed */
}
