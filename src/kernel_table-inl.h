// One kernel unit's entries of a target's kernel table (kernels.h): the
// generate kernels of the kinds that kernel_list.h assigns to the unit (and,
// for the bits unit, the move and replay kernels), compiled once per SIMD
// target by that unit's kernels_<unit>.cc. Included only through
// foreach_target.h, hence the toggle guard.

#if defined(RANDTENSOR_SRC_KERNEL_TABLE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef RANDTENSOR_SRC_KERNEL_TABLE_INL_H_
#undef RANDTENSOR_SRC_KERNEL_TABLE_INL_H_
#else
#define RANDTENSOR_SRC_KERNEL_TABLE_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "src/capabilities-inl.h"
#include "src/compiled_targets.h"
#include "src/convert-inl.h"
#include "src/generate-inl.h"
#include "src/kernel_list.h"
#include "src/kernels.h"
#include "src/move-inl.h"
#include "src/replay-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {

// Bits converted: the words themselves (ConvertFn).
inline void CopyWords(const detail::KindParams& /*params*/, const uint32_t* words, uint64_t n,
                      void* dst) {
  std::memcpy(dst, words, n * 4);
}

// The generate kernels of one kind on this target.
template <detail::GenerateKind kKind>
detail::GenerateKernels KernelsOf() {
  if constexpr (kKind == detail::GenerateKind::kBitsUint32) {
#if RANDTENSOR_NARROW_LANES
    return {GenerateBits, CopyWords, GenerateBitsColumns,
            static_cast<uint32_t>(hn::Lanes(hn::ScalableTag<uint32_t>())),
            replay::ReplayRows<kKind>};
#else
    return {GenerateBits, CopyWords, nullptr, 0, replay::ReplayRows<kKind>};
#endif
  } else {
    detail::GenerateKernels k = {convert::GenerateConverted<kKind>, convert::ConvertWords<kKind>,
                                 nullptr, 0};
    if constexpr (replay::HasReplayRows(kKind)) k.replay_rows = replay::ReplayRows<kKind>;
    return k;
  }
}

// Fills the entries of kUnit's kinds in `table` (and, for the bits unit, the
// lanes, the move kernels and the thread blocks). Only kUnit's kernels are
// instantiated: the other kinds' branches are discarded.
template <detail::KernelUnit kUnit>
void AddKernels(detail::KernelTable* table) {
#define RANDTENSOR_GENERATE_ENTRY(kind, type, words)                   \
  if constexpr (detail::UnitOf(detail::GenerateKind::kind) == kUnit) { \
    table->generate[static_cast<int>(detail::GenerateKind::kind)] =    \
        KernelsOf<detail::GenerateKind::kind>();                       \
  }
  RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_GENERATE_ENTRY)
#undef RANDTENSOR_GENERATE_ENTRY
  if constexpr (kUnit == detail::KernelUnit::kBits) {
    table->lanes = static_cast<int>(hn::Lanes(hn::ScalableTag<uint32_t>()));
#define RANDTENSOR_MOVE_ENTRY(bytes, type) \
  table->move[detail::MoveIndex(bytes)] = MoveKernelsFor<type>();
    RANDTENSOR_MOVE_SIZES(RANDTENSOR_MOVE_ENTRY)
#undef RANDTENSOR_MOVE_ENTRY
    table->thread_blocks = replay::ThreadBlocks;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

// A kernel unit's per-target function, Add<Unit>Kernels (one per pass of
// foreach_target.h); RANDTENSOR_UNIT_TARGETS lists them (compiled_targets.h).
#ifndef RANDTENSOR_KERNEL_UNIT
#define RANDTENSOR_KERNEL_UNIT(Unit)                    \
  HWY_BEFORE_NAMESPACE();                               \
  namespace randtensor {                                \
  namespace HWY_NAMESPACE {                             \
  void Add##Unit##Kernels(detail::KernelTable* table) { \
    AddKernels<detail::KernelUnit::k##Unit>(table);     \
  }                                                     \
  }                                                     \
  }                                                     \
  HWY_AFTER_NAMESPACE()
#endif

#endif  // RANDTENSOR_SRC_KERNEL_TABLE_INL_H_ toggle guard
