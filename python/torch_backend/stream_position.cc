#include "stream_position.h"

#include <c10/util/Exception.h>

#include <cstring>

namespace randtensor_torch {
namespace {

// A quiet NaN with the top payload bit set; the low 50 bits hold offset / 4.
constexpr uint64_t kTag = 0x7FFC000000000000ull;
constexpr uint64_t kTagMask = 0xFFFC000000000000ull;

bool TaggedBits(at::CPUGeneratorImpl* gen, uint64_t* bits) {
  const auto cached = gen->next_double_normal_sample();
  if (!cached.has_value()) return false;
  const double value = *cached;
  std::memcpy(bits, &value, sizeof value);
  return (*bits & kTagMask) == kTag;
}

}  // namespace

uint64_t ReadOffset(at::CPUGeneratorImpl* gen) {
  uint64_t bits = 0;
  return TaggedBits(gen, &bits) ? (bits & ~kTagMask) * 4 : 0;
}

void WriteOffset(at::CPUGeneratorImpl* gen, uint64_t offset) {
  TORCH_CHECK(offset % 4 == 0 && offset < kOffsetLimit, "randtensor: generator offset ", offset,
              " is past the last one a CPU generator can hold (2^52); reseed it");
  const uint64_t bits = kTag | (offset / 4);
  double value = 0;
  std::memcpy(&value, &bits, sizeof value);
  gen->set_next_double_normal_sample(value);
}

bool HoldsOffset(at::CPUGeneratorImpl* gen) {
  uint64_t bits = 0;
  return TaggedBits(gen, &bits);
}

}  // namespace randtensor_torch
