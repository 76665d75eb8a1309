// C++: fill a 2-D view with negative strides, then a packed tensor, chaining
// the state from one call to the next.
#include <cstdio>
#include <vector>

#include "randtensor/fill.h"

int main() {
  randtensor::PhiloxState state = randtensor::PhiloxState::FromSeed(0);  // counter 0, key 0

  // A 3 x 4 tensor stored bottom row first: element (0, 0) is at the start of
  // the last row, 32 bytes into the buffer; rows go up (stride -4), columns
  // go right (stride 1). Every element is checked against the buffer.
  std::vector<uint32_t> storage(12);
  const int64_t sizes[2] = {3, 4};
  const int64_t strides[2] = {-4, 1};
  randtensor::TensorDesc desc;
  desc.rank = 2;
  desc.sizes = sizes;
  desc.strides = strides;
  desc.byte_offset = 8 * sizeof(uint32_t);
  randtensor::Status status =
      randtensor::Fill(desc, storage.data(), storage.size() * 4, state, &state);
  if (!status.ok()) {
    std::fprintf(stderr, "fill failed: %s\n", status.message());
    return 1;
  }
  // Logical element 0 is Philox(counter 0, key 0) word 0 (SPEC.md section 6).
  std::printf("element (0,0) = 0x%08x, counter now %u\n", storage[8], state.words[0]);
  return storage[8] == 0x6627e8d5u && state.words[0] == 3 ? 0 : 1;
}
