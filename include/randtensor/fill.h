// The native fill API: Philox4x32-10 random bits into any strided tensor.
//
// Semantics (SPEC.md section 3): number the elements in logical row-major
// order (last dimension fastest); element e gets
//     word (e' mod 4) of Philox4x32-10(C + floor(e' / 4), key),  e' = offset + e
// where C and key come from the input state and offset is
// FillOptions::element_offset. The element is stored at
//     data + byte_offset + size * sum_d index[d] * strides[d]
// (strides in elements, not bytes; byte_offset from TensorDesc).
// Values depend only on the state, the offset and e: never on strides, padding,
// threads, tiling or the SIMD target. Bytes no element maps to are never written.
// The output state is C + ceil((offset + N) / 4) mod 2^128 with the key copied.
//
// Beyond DirectML (which `directml.h` mirrors with its own limits), this API:
//   - takes signed 64-bit sizes and strides; a negative stride is a supported
//     layout (NumPy and PyTorch views): TensorDesc::byte_offset places
//     element (0, ..., 0) inside the buffer, and every element is checked
//     against the buffer's bounds;
//   - takes 64-bit element counts and ranks 0 to 8 (rank 0 holds one element);
//   - treats a tensor with a zero size as a no-op that still writes the state
//     (counter advanced by ceil(offset / 4));
//   - starts the stream at any element offset (sharding; cuRAND's offset).
#ifndef RANDTENSOR_FILL_H_
#define RANDTENSOR_FILL_H_

#include <cstdint>

#include "randtensor/distribution.h"
#include "randtensor/export.h"
#include "randtensor/parallel.h"
#include "randtensor/philox.h"
#include "randtensor/region.h"
#include "randtensor/replay.h"
#include "randtensor/status.h"

namespace randtensor {

inline constexpr int kMaxRank = 8;

// Output element types (which distributions each holds: distribution.h).
enum class DataType : int32_t {
  kUint32 = 0,
  kFloat32 = 1,
  kFloat64 = 2,
  kFloat16 = 3,
  kBfloat16 = 4,
  kUint8 = 5,
  kBool = 6,  // one byte, 0 or 1
  kInt32 = 7,
  kInt64 = 8,
};

// Size of one element of `type` in bytes, or 0 for an unknown type.
RANDTENSOR_API int ElementSize(DataType type) noexcept;

struct TensorDesc {
  DataType dtype = DataType::kUint32;
  int32_t rank = 0;                  // 0 to kMaxRank
  const int64_t* sizes = nullptr;    // `rank` sizes, each >= 0
  const int64_t* strides = nullptr;  // `rank` strides in elements; nullptr: packed row-major
  // Bytes from the buffer's start to element (0, ..., 0), as DLPack's
  // byte_offset: with negative strides some elements lie before element
  // (0, ..., 0), and this is how the library knows where the buffer begins.
  uint64_t byte_offset = 0;
};

// How stores reach memory. kAuto uses regular stores for outputs that fit
// the caches; for larger ones, streaming (non-temporal) or regular stores,
// whichever this host has written faster for this thread count (timed on
// the process's first large fills, docs/api.md "Threads and stores").
enum class StoreMode : int32_t { kAuto = 0, kRegular = 1, kStreaming = 2 };

// What a fill did; filled in when FillOptions::info is set (an empty tensor
// leaves every field at its default: nothing ran).
struct FillInfo {
  const char* target = "";  // name of the SIMD target whose kernels ran
  int lanes = 0;            // its vector width in 32-bit lanes
  uint32_t tasks = 0;       // how many tasks the work was cut into
  // Whether the output was written with streaming stores: kAuto resolved,
  // and false where the layout stores elements one at a time (scattered).
  // Lines of a transposed tile that are not whole cache lines are stored
  // plainly even then.
  bool streaming = false;
  // How the layout was walked: "rows" (generated in place), "staged rows"
  // (through L1, copied or scattered), "columns" (transposed tiles generated
  // straight into place), "transposed" (transposed through L1), "scattered".
  const char* strategy = "";
};

struct FillOptions {
  // First element of the stream to use (see the semantics above).
  uint64_t element_offset = 0;
  // At most this many threads; 0: DefaultThreads() (all hardware threads
  // unless SetDefaultThreads said otherwise), 1: run inline on the caller.
  uint32_t threads = 0;
  // The host's thread pool; empty: DefaultParallelFor(), else the library's own.
  ParallelFor parallel_for = {};
  StoreMode stores = StoreMode::kAuto;
  // Elements per task (rounded up to a multiple of 4); 0: chosen automatically.
  // Exposed so tests can prove that cutting the work never changes values.
  uint64_t task_elements = 0;
  FillInfo* info = nullptr;  // optional report of what ran
  // What values to write (distribution.h); the default is the stream's bits.
  Distribution distribution = {};
  // A region of a larger global tensor (region.h); nullptr: the whole tensor.
  const Region* region = nullptr;
  // Which element reads which stream words (replay.h). kTorchCuda replays
  // PyTorch's CUDA kernels on the GPU `gpu` for a packed row-major tensor,
  // with element_offset 0 and no region; the output state is then the
  // generator's (offset / 4 advanced by the blocks each thread drew).
  ElementOrder order = ElementOrder::kStream;
  GpuGeometry gpu = {};
};

// Minimum buffer size in bytes for `desc` (DirectML's rule, SPEC.md section 4):
// (highest offset - lowest offset + 1) * element size rounded up to a multiple
// of 4; 0 for an empty tensor. Fails on invalid descriptors and on overflow.
RANDTENSOR_API Status MinBufferBytes(const TensorDesc& desc, uint64_t* bytes) noexcept;

// Fills the tensor `desc` in the buffer of `buffer_bytes` bytes that starts at
// `data`; element (0, ..., 0) is at data + desc.byte_offset. Every element
// must lie inside [data, data + buffer_bytes): a layout that reaches before
// the buffer's start (negative strides with too small a byte_offset) or past
// its end is an error. `data` and byte_offset must be aligned to the element
// size. `out_state` may be nullptr or the same memory as `in_state`, and may
// not overlap the buffer. On error nothing is written.
RANDTENSOR_API Status Fill(const TensorDesc& desc, void* data, uint64_t buffer_bytes,
            const PhiloxState& in_state, PhiloxState* out_state,
            const FillOptions& options = FillOptions()) noexcept;

}  // namespace randtensor

#endif  // RANDTENSOR_FILL_H_
