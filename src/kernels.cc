// The per-target kernel tables: every kernel of kernel_list.h, compiled once
// per SIMD target, and the one list of those tables.
//
// Highway's foreach_target.h re-includes this file once for every target in
// HWY_TARGETS (we define HWY_COMPILE_ALL_ATTAINABLE, so on x86 SSSE3, SSE4,
// AVX2, AVX3 and the portable SCALAR are all built), each time inside a
// namespace named after the target, where GetKernelTable() fills one table
// from the kernels in generate-inl.h and move-inl.h. The HWY_ONCE block at the
// end collects them through Highway's own per-target export. Which entry runs
// is decided in targets.cc, never here.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
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
void CopyWords(const detail::KindParams& /*params*/, const uint32_t* words, uint64_t n,
               void* dst) {
  std::memcpy(dst, words, n * 4);
}

// The generate kernels of one kind on this target (kernel_list.h).
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
    detail::GenerateKernels k = {convert::GenerateConverted<kKind>,
                                 convert::ConvertWords<kKind>, nullptr, 0};
    if constexpr (replay::HasReplayRows(kKind)) k.replay_rows = replay::ReplayRows<kKind>;
    return k;
  }
}

// The entry this target contributes. A function rather than a global so the
// table is complete even when used from static initializers.
detail::KernelTable GetKernelTable() {
  detail::KernelTable table{};
  table.name = hwy::TargetName(HWY_TARGET);
  table.hwy_target = HWY_TARGET;
  table.lanes = static_cast<int>(hn::Lanes(hn::ScalableTag<uint32_t>()));
#define RANDTENSOR_GENERATE_ENTRY(kind, type, words) \
  table.generate[static_cast<int>(detail::GenerateKind::kind)] = \
      KernelsOf<detail::GenerateKind::kind>();
  RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_GENERATE_ENTRY)
#undef RANDTENSOR_GENERATE_ENTRY
#define RANDTENSOR_MOVE_ENTRY(bytes, type) \
  table.move[detail::MoveIndex(bytes)] = MoveKernelsFor<type>();
  RANDTENSOR_MOVE_SIZES(RANDTENSOR_MOVE_ENTRY)
#undef RANDTENSOR_MOVE_ENTRY
  table.thread_blocks = replay::ThreadBlocks;
  return table;
}

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace randtensor {
namespace detail {

HWY_EXPORT(GetKernelTable);

namespace {

// 32-bit lanes of a target's vectors, known without running its code; 0
// where that needs the CPU (SVE's width).
int LanesWithoutRunning(int64_t target) {
  if (target == HWY_SCALAR) return 1;
#if HWY_ARCH_X86
  if (target == HWY_AVX3 || target == HWY_AVX3_DL) return 16;
  if (target == HWY_AVX2) return 8;
  if (target == HWY_SSE4 || target == HWY_SSSE3 || target == HWY_EMU128) return 4;
#endif
  return 0;
}

}  // namespace

// Highway's export table has one slot per target bit it can dispatch to on
// this architecture (a null pointer where nothing was compiled), then the
// fallback (SCALAR or EMU128); slot 0 is its lazy dispatcher. Walking the
// compiled target bits from the lowest (Highway's best target) up lists them
// widest first, so the first supported entry is the default choice.
//
// A target this CPU does not run is listed by name with no kernels: its
// GetKernelTable is never called, because the compiler may use the target's
// instructions anywhere in it (GCC 12 builds AVX3's with EVEX moves, which an
// AVX2-only CPU cannot execute).
const KernelTable* CompiledKernels(int* count) noexcept {
  struct Tables {
    KernelTable entries[64];
    int count = 0;
  };
  static const Tables tables = [] {
    Tables t;
    const int64_t supported = hwy::SupportedTargets();
    for (int bit = 0; bit < 63; ++bit) {
      const int64_t target = int64_t{1} << bit;
      if ((HWY_TARGETS & target) == 0) continue;
      const int64_t chosen = (target == HWY_SCALAR || target == HWY_EMU128)
                                 ? HWY_CHOSEN_TARGET_MASK_SCALAR
                                 : HWY_CHOSEN_TARGET_SHIFT(target);
      const int slot = static_cast<int>(hwy::Num0BitsBelowLS1Bit_Nonzero64(
          static_cast<uint64_t>(chosen)));
      const auto get = HWY_DISPATCH_TABLE(GetKernelTable)[slot];
      if (get == nullptr) continue;
      if ((supported & target) == 0) {
        KernelTable entry{};
        entry.name = hwy::TargetName(target);
        entry.hwy_target = target;
        entry.lanes = LanesWithoutRunning(target);
        t.entries[t.count++] = entry;
        continue;
      }
      const KernelTable entry = get();
      // SCALAR and EMU128 share the fallback slot: list the one it holds once.
      if (entry.hwy_target == target) t.entries[t.count++] = entry;
    }
    return t;
  }();
  *count = tables.count;
  return tables.entries;
}

void StreamFence() noexcept { hwy::FlushStream(); }

}  // namespace detail
}  // namespace randtensor
#endif  // HWY_ONCE
