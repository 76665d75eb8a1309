// The tiled writer: the one place that cuts a fill into tasks and walks layouts.
//
// The local elements are cut into tasks that write disjoint sets of elements,
// and every element's value comes from its stream position in the plan's
// stream map (plan.h), never from where it sits in the local order: tasks
// share nothing, and any tiling or thread count yields the same bytes.
// Within a task the writer walks the canonical layout row by row (a row is a
// run along the innermost dimension), handing runs to the generate kernels
// and staged elements to the move kernels.
#ifndef RANDTENSOR_SRC_WRITER_H_
#define RANDTENSOR_SRC_WRITER_H_

#include <cstdint>

#include "randtensor/fill.h"
#include "src/plan.h"

namespace randtensor {
namespace detail {

// Whether an output of this many bytes is larger than the caches, where
// StoreMode::kAuto lets the host choose the stores (store_choice.h); below,
// kAuto uses regular stores.
bool LargerThanCaches(uint64_t bytes) noexcept;

// Writes every element of `plan` (validated, count > 0) and reports what was
// done. Never fails: all checks happened before.
void WriteTensor(const Plan& plan, const PhiloxState& state, FillInfo* info) noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_WRITER_H_
