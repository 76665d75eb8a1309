// The tiled writer: the one place that cuts a fill into tasks and walks layouts.
//
// The logical element range [0, N) is cut into tiles whose boundaries fall on
// Philox block boundaries of the stream, so every task owns a disjoint range
// of counters and writes a disjoint set of elements: tasks share nothing, and
// any tiling or thread count yields the same bytes. Within a tile the writer
// walks the canonical layout row by row (a row is a run along the innermost
// dimension), handing contiguous rows and strided rows to the kernels.
#ifndef RANDTENSOR_SRC_WRITER_H_
#define RANDTENSOR_SRC_WRITER_H_

#include <cstdint>

#include "randtensor/fill.h"
#include "src/kernels.h"
#include "src/layout.h"

namespace randtensor {
namespace detail {

// Writes every element of `layout` (validated, count > 0) whose element
// (0, ..., 0) is at `origin`. Never fails: all checks happened before.
void WriteTensor(const Layout& layout, uint32_t* origin, const KernelTable& kernels,
                 const PhiloxState& state, const FillOptions& options, FillInfo* info) noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_WRITER_H_
