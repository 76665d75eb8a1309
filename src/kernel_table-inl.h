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
#include <type_traits>

#include "hwy/highway.h"
#include "src/capabilities-inl.h"
#include "src/compiled_targets.h"
#include "src/convert/bernoulli-inl.h"
#include "src/convert/bits-inl.h"
#include "src/convert/cauchy-inl.h"
#include "src/convert/exponential-inl.h"
#include "src/convert/geometric-inl.h"
#include "src/convert/integers-inl.h"
#include "src/convert/log_normal-inl.h"
#include "src/convert/normal-inl.h"
#include "src/convert/uniform-inl.h"
#include "src/generate-inl.h"
#include "src/kernel_list.h"
#include "src/kernels.h"
#include "src/move-inl.h"
#include "src/replay-inl.h"
#include "src/run-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {

// The generate kernels of one kind on this target: the run driver with its
// converter C (kernel_list.h); bits, the identity, also has the column
// kernel on narrow lanes.
template <detail::GenerateKind kKind, class C>
detail::GenerateKernels KernelsOf() {
  static_assert(sizeof(typename C::Type) == sizeof(typename detail::KindTraits<kKind>::Type) &&
                    C::kWords == detail::KindTraits<kKind>::kWords,
                "the list line's element size and words are the converter's");
  detail::GenerateKernels k = {convert::GenerateConverted<C>, convert::ConvertWords<C>, nullptr,
                               0};
#if RANDTENSOR_NARROW_LANES
  if constexpr (kKind == detail::GenerateKind::kBitsUint32) {
    k.columns = GenerateBitsColumns;
    k.column_lanes = static_cast<uint32_t>(hn::Lanes(hn::ScalableTag<uint32_t>()));
  }
#endif
  if constexpr (replay::HasReplayRows<C>()) k.replay_rows = replay::ReplayRows<C>;
  k.rows = convert::GenerateRows<C>;
  k.vector_elements = convert::VectorElements<C>();
  k.split_elements = convert::SplitElements<C>();
  k.cross_elements = convert::CrossElements<C>();
  k.spill_elements = convert::SpillElements<C>();
  k.group_elements = convert::GroupElements<C>();
  return k;
}

// Fills the entries of kUnit's kinds in `table` (and, for the bits unit, the
// lanes, the move kernels and the thread blocks). Only kUnit's kernels are
// instantiated: the other kinds' branches are discarded.
template <detail::KernelUnit kUnit>
void AddKernels(detail::KernelTable* table) {
#define RANDTENSOR_GENERATE_ENTRY(kind, type, words, unit, converter) \
  if constexpr (detail::KernelUnit::k##unit == kUnit) {                \
    table->generate[static_cast<int>(detail::GenerateKind::kind)] =    \
        KernelsOf<detail::GenerateKind::kind, convert::converter>();   \
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
