#include "stream_position.h"

#include <c10/util/Exception.h>
#include <c10/util/intrusive_ptr.h>

#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace randtensor_torch {
namespace {

// A quiet NaN with the top payload bit set; the low 50 bits hold offset / 4.
constexpr uint64_t kTag = 0x7FFC000000000000ull;
constexpr uint64_t kTagMask = 0xFFFC000000000000ull;

// Every generator that has held an offset, weakly: ForgetOffsets' list.
std::mutex registry_mutex;
std::unordered_map<c10::GeneratorImpl*, c10::weak_intrusive_ptr<c10::GeneratorImpl>> registry;

void Remember(at::CPUGeneratorImpl* gen) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto known = registry.find(gen);
  if (known != registry.end() && !known->second.expired()) return;
  // New, or a new generator at a dead one's address.
  c10::weak_intrusive_ptr<c10::GeneratorImpl> weak(
      c10::intrusive_ptr<c10::GeneratorImpl>::reclaim_copy(gen));
  if (known == registry.end()) {
    registry.emplace(gen, std::move(weak));
  } else {
    known->second = std::move(weak);
  }
}

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
  uint64_t old = 0;
  if (!TaggedBits(gen, &old)) Remember(gen);  // once per seeding, not per draw
  const uint64_t bits = kTag | (offset / 4);
  double value = 0;
  std::memcpy(&value, &bits, sizeof value);
  gen->set_next_double_normal_sample(value);
}

bool HoldsOffset(at::CPUGeneratorImpl* gen) {
  uint64_t bits = 0;
  return TaggedBits(gen, &bits);
}

void ForgetOffsets() {
  // The live generators first, then each one's lock: WriteOffset takes the
  // registry's lock under a generator's, so never the other way round.
  std::vector<c10::intrusive_ptr<c10::GeneratorImpl>> live;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (auto& entry : registry) {
      if (auto strong = entry.second.lock()) live.push_back(std::move(strong));
    }
    registry.clear();
  }
  for (const auto& strong : live) {
    auto* gen = static_cast<at::CPUGeneratorImpl*>(strong.get());
    std::lock_guard<std::mutex> lock(gen->mutex_);
    if (HoldsOffset(gen)) gen->set_next_double_normal_sample(c10::optional<double>());
  }
}

}  // namespace randtensor_torch
