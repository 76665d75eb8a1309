// C++: a 3 x 4 view stored bottom row first (row stride -4), from seed 0.
#include <cstdio>

#include "randtensor/fill.h"

int main() {
  randtensor::PhiloxState state = randtensor::PhiloxState::FromSeed(0);  // counter 0, key 0
  uint32_t storage[12];
  const int64_t sizes[2] = {3, 4}, strides[2] = {-4, 1};
  randtensor::TensorDesc desc;
  desc.rank = 2;
  desc.sizes = sizes;
  desc.strides = strides;
  desc.byte_offset = 8 * sizeof(uint32_t);  // element (0, 0) starts the last row
  const randtensor::Status status = randtensor::Fill(desc, storage, sizeof storage, state, &state);
  if (!status.ok()) return std::fprintf(stderr, "fill failed: %s\n", status.message()), 1;
  // Logical element 0 is Philox(counter 0, key 0) word 0 (SPEC.md section 6).
  std::printf("element (0,0) = 0x%08x, counter now %u\n", storage[8], state.words[0]);
  return storage[8] == 0x6627e8d5u && state.words[0] == 3 ? 0 : 1;
}
