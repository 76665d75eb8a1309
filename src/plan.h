// A fill, validated and planned once: what every entry point (native, C,
// DLPack, DirectML, CLI, Python) builds and the writer executes.
//
// Each way in validates its own descriptor with its own field names
// (AnalyzeLayout for the layout), then PlanFill binds the layout to memory,
// the output state and the options, and ExecutePlan runs it. Nothing is
// analyzed twice and nothing is written before the plan exists, so a call
// that fails writes nothing.
#ifndef RANDTENSOR_SRC_PLAN_H_
#define RANDTENSOR_SRC_PLAN_H_

#include <cstdint>

#include "randtensor/fill.h"
#include "randtensor/status.h"
#include "src/kernel_list.h"
#include "src/kernels.h"
#include "src/layout.h"

namespace randtensor {
namespace detail {

// The constants of a kind that has none (bits): what plans point to for it.
inline constexpr KindParams kNoParams{};

struct Plan {
  // What each element is: the generate kernel's kind (its size and stream
  // words per element: ElementBytes / WordsPerElement of kernel_list.h).
  GenerateKind kind = GenerateKind::kBitsUint32;
  // The distribution's constants: the caller's (not copied: small fills
  // count), which outlive the plan's execution as `layout` does. Executors
  // copy them before handing out tasks: they may sit in the calling thread's
  // cache (ResolveDistribution), which a host pool's hook could refill.
  const KindParams* params = nullptr;

  // Where each element goes and which element of the stream it is (the
  // stream map: layout->strides and layout->stream_strides, see layout.h).
  // The caller's validated layout, which outlives the plan's execution (a
  // fill plans and executes in one call; not copied: small fills count).
  const Layout* layout = nullptr;
  uint64_t stream_base = 0;  // stream index of element (0, ..., 0)
  uint64_t stream_end = 0;   // one past the last stream element the fill owns
  char* origin = nullptr;    // element (0, ..., 0)

  // How: the kernels of the active target and the resolved store mode.
  const KernelTable* kernels = nullptr;
  bool nontemporal = false;
  bool choose_stores = false;  // kAuto, larger than the caches: the writer chooses
  uint32_t threads = 1;        // resolved: at least 1
  ParallelFor parallel_for;    // empty: the library's pool
  uint64_t task_elements = 0;  // FillOptions::task_elements

  // A GPU element order (replay.h; PlanReplay) on the GPU `gpu`: PyTorch's
  // grid of grid_threads threads (of the first launch: a tensor past 31-bit
  // byte offsets takes several), drawing `calls` Philox blocks in all.
  ElementOrder order = ElementOrder::kStream;
  GpuGeometry gpu = {};
  uint64_t grid_threads = 0;
  uint64_t calls = 0;
};

// The generate kind of (dtype, distribution) and its per-fill constants, or
// an error naming the parameter and value (SPEC.md section 8's rules).
// *params points into a per-thread cache: valid until this thread's next call.
Status ResolveDistribution(DataType type, const Distribution& distribution, GenerateKind* kind,
                           const KindParams** params) noexcept;

// Binds a validated `layout` of elements of `kind` (with its constants
// `params`, kept by address like `layout`: both must outlive ExecutePlan) to the buffer of
// `buffer_bytes` bytes at `data`, whose element (0, ..., 0) lies
// `byte_offset` bytes in, an optional output state and the fill options.
// Checks everything the layout alone could not (null or misaligned data,
// every element inside the buffer, address-space wrap, offset overflow,
// overlap with the output state, store mode, target). Messages use the
// native API's names (data, buffer_bytes, byte_offset).
Status PlanFill(const Layout& layout, GenerateKind kind, const KindParams& params, void* data,
                uint64_t buffer_bytes, uint64_t byte_offset, const PhiloxState* out_state,
                const FillOptions& options, Plan* plan) noexcept;

// Writes every element and then out_state (may be null or alias the input
// state, which was read first). Never fails: PlanFill checked everything.
void ExecutePlan(const Plan& plan, const PhiloxState& in_state, PhiloxState* out_state,
                 FillInfo* info) noexcept;

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_PLAN_H_
