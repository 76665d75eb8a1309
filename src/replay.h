// Replay of a GPU element order (randtensor/replay.h) inside the fill's plan:
// PlanFill calls PlanReplay, ExecutePlan calls ReplayTensor instead of the
// stream-order writer.
#ifndef RANDTENSOR_SRC_REPLAY_H_
#define RANDTENSOR_SRC_REPLAY_H_

#include "randtensor/fill.h"
#include "randtensor/status.h"
#include "src/layout.h"
#include "src/plan.h"

namespace randtensor {
namespace detail {

// Checks what a replay order needs (packed row-major, no element offset or
// region, the GPU geometry) and sets the plan's order, grid and calls (over
// every launch PyTorch makes of the tensor). Stream order: only records it.
Status PlanReplay(const Layout& layout, GenerateKind kind, const FillOptions& options,
                  Plan* plan) noexcept;

// Writes every element of a replay plan (count > 0). Never fails.
void ReplayTensor(const Plan& plan, const PhiloxState& state, FillInfo* info) noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_REPLAY_H_
