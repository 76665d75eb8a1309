// A 64-byte aligned byte buffer: a cache line and an AVX-512 vector, so
// timings do not depend on where the allocator happened to put it (or more
// aligned, `align` a power of two: 4096 for O_DIRECT writes).
#ifndef RANDTENSOR_TOOLS_BUFFER_H_
#define RANDTENSOR_TOOLS_BUFFER_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "tools/cli_args.h"

namespace randtensor_cli {

class Buffer {
 public:
  // Fails (status 1) when the memory cannot be had.
  explicit Buffer(uint64_t bytes, uint64_t align = 64) : size_(bytes) {
    const uint64_t kAlign = std::max<uint64_t>(align, 64);
    // aligned_alloc wants a multiple of the alignment; it cannot be 0 either.
    if (bytes <= SIZE_MAX - kAlign) {
      const size_t rounded =
          static_cast<size_t>((std::max<uint64_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign);
      data_.reset(static_cast<uint8_t*>(std::aligned_alloc(kAlign, rounded)));
    }
    if (data_ == nullptr) {
      Fail(kExitFailure,
           "cannot allocate " + std::to_string(bytes) + " bytes for the output buffer");
    }
  }
  uint8_t* data() const { return data_.get(); }
  size_t size() const { return static_cast<size_t>(size_); }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  uint64_t size_;
  std::unique_ptr<uint8_t, Free> data_;
};

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_BUFFER_H_
