// Layout analysis: validates sizes and strides, proves no two elements share
// an address, computes the buffer span, and reduces the layout to a canonical
// form the writer walks quickly.
//
// Every entry point (native, DirectML, C, Python) funnels through
// AnalyzeLayout, so the rules of SPEC.md section 4 live in one place. The
// caller names the fields so errors read in the caller's vocabulary
// ("OutputTensor.Strides[1]" for DirectML, "strides[1]" natively).
#ifndef RANDTENSOR_SRC_LAYOUT_H_
#define RANDTENSOR_SRC_LAYOUT_H_

#include <cstdint>

#include "randtensor/fill.h"
#include "randtensor/status.h"

namespace randtensor {
namespace detail {

struct FieldNames {
  const char* rank;     // e.g. "rank" or "OutputTensor.DimensionCount"
  const char* sizes;    // e.g. "sizes" or "OutputTensor.Sizes"
  const char* strides;  // e.g. "strides" or "OutputTensor.Strides"
};

struct Layout {
  uint64_t count = 0;      // number of elements N (0: empty)
  int64_t low = 0;         // lowest element offset from element (0, ..., 0)
  int64_t high = 0;        // highest element offset
  uint64_t min_bytes = 0;  // minimum buffer size: span * element size, rounded up to 4

  // Canonical form: dimensions of size 1 dropped, and each dimension merged
  // into the next inner one when together they are one evenly strided run
  // both in memory (strides[d] == sizes[d+1] * strides[d+1]) and in the
  // stream (likewise for stream_strides). Same logical order, same offsets,
  // fewer and longer rows. An empty or one-element tensor has rank 1.
  //
  // The stream map: the element at index idx is stored at
  // sum idx[d] * strides[d] elements from element (0, ..., 0) and is element
  // sum idx[d] * stream_strides[d] of the fill's stream (plus the fill's base,
  // see plan.h). A whole tensor's stream strides are its row-major logical
  // strides; a window of a larger tensor has the larger tensor's.
  int rank = 1;
  int64_t sizes[kMaxRank];           // the first `rank` entries are set
  int64_t strides[kMaxRank];         // memory, in elements
  uint64_t stream_strides[kMaxRank];  // stream, in elements
  // Local row-major order is stream order without gaps (stream_strides are
  // the row-major strides of sizes): true for every whole tensor.
  bool stream_contiguous = true;
};

// Validates and analyzes a layout of `rank` (0 to kMaxRank) dimensions into
// *layout (which holds garbage after an error).
// `strides` nullptr means packed row-major. Sizes may be 0 (an empty tensor);
// callers that forbid that check it themselves first.
// `stream_strides` (nullptr: the row-major strides of `sizes`, a whole
// tensor) gives each dimension's step in the stream: a region of a global
// tensor passes the global tensor's row-major strides.
Status AnalyzeLayout(int64_t rank, const int64_t* sizes, const int64_t* strides,
                     int element_size, const FieldNames& names, Layout* layout,
                     const uint64_t* stream_strides = nullptr) noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_LAYOUT_H_
