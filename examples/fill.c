/* C: fill a 2 x 5 tensor from seed 42 (counter words 0-3, key words 0-1). */
#include <stdio.h>

#include "randtensor/randtensor.h"

int main(void) {
  uint32_t state[6] = {0, 0, 0, 0, 42, 0}, out[10];
  const int64_t sizes[2] = {2, 5};
  if (randtensor_fill(out, sizeof out, 0, RANDTENSOR_UINT32, 2, sizes, NULL, state, state, NULL) !=
      RANDTENSOR_OK) {
    return fprintf(stderr, "fill failed: %s\n", randtensor_last_error()), 1;
  }
  printf("out[0] = 0x%08x, counter now %u\n", out[0], state[0]);
  return state[0] == 3 ? 0 : 1; /* ceil(10 / 4) blocks consumed */
}
