// PackBfloat16 (AVX512_BF16's vcvtne2ps2bf16, src/pack_bfloat16-inl.h)
// against round-to-nearest-even written here, on every float the AVX-512
// uniform bfloat16 kernel may give it: every normal float of either sign and
// both zeros (fill.cc proves no other reaches it). The other targets round
// with integer operations (convert-inl.h, Bfloat16Rounded), whose bits the
// distribution tests compare with the Python reference; so this equality is
// what lets the kernel use the pack and still give those bits. Skipped where
// the CPU lacks AVX512_BF16 (this test reads CPUID itself).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tests/pack_bfloat16_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstdint>

#include "hwy/highway.h"
#include "src/pack_bfloat16-inl.h"

HWY_BEFORE_NAMESPACE();
namespace randtensor {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Lanes where the pack differs from the reference, over the floats whose
// bits have the given sign and lie in [first, end) (a multiple of 32 apart);
// the first such float's bits in *bad. -1 on targets without the pack.
int64_t PackMismatches(uint32_t sign, uint32_t first, uint32_t end, uint32_t* bad) {
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  const hn::ScalableTag<uint32_t> dw;
  const hn::ScalableTag<float> df;
  const hn::ScalableTag<uint16_t> d16;
  const auto lanes = hn::Iota(dw, 0);
  // Reference: bits + 0x7FFF + (bit 16), then the high half; the high
  // halves of two vectors in order by a two-source word permute.
  const auto rounded = [&](hn::Vec<decltype(dw)> x) {
    const auto odd = hn::And(hn::ShiftRight<16>(x), hn::Set(dw, 1u));
    return hn::Add(hn::Add(x, hn::Set(dw, 0x7FFFu)), odd);
  };
  const __m512i high_halves = _mm512_set_epi16(
      63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33,
      31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  int64_t mismatches = 0;
  for (uint64_t x = first; x < end; x += 32) {
    const auto a = hn::Add(lanes, hn::Set(dw, static_cast<uint32_t>(x) | sign));
    const auto b = hn::Add(a, hn::Set(dw, 16u));
    const auto packed = PackBfloat16(hn::BitCast(df, a), hn::BitCast(df, b));
    const hn::Vec<decltype(d16)> want{
        _mm512_permutex2var_epi16(rounded(a).raw, high_halves, rounded(b).raw)};
    const __mmask32 differ = _mm512_cmpneq_epi16_mask(packed.raw, want.raw);
    if (HWY_UNLIKELY(differ != 0)) {
      const int lane = __builtin_ctz(differ);
      if (mismatches == 0) *bad = (static_cast<uint32_t>(x) + lane) | sign;
      mismatches += __builtin_popcount(differ);
    }
  }
  return mismatches;
#else
  (void)sign, (void)first, (void)end, (void)bad;
  return -1;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace randtensor
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace randtensor {
namespace {

HWY_EXPORT(PackMismatches);

bool CpuHasAvx512Bf16() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if ((hwy::SupportedTargets() & HWY_AVX3) == 0) return false;
  return __get_cpuid_count(7, 1, &a, &b, &c, &d) != 0 && ((a >> 5) & 1) != 0;
#else
  return false;  // the pack is an x86 instruction
#endif
}

int64_t Mismatches(uint32_t sign, uint32_t first, uint32_t end, uint32_t* bad) {
  hwy::SetSupportedTargetsForTest(HWY_AVX3);
  const int64_t n = HWY_DYNAMIC_DISPATCH(PackMismatches)(sign, first, end, bad);
  hwy::SetSupportedTargetsForTest(0);
  return n;
}

TEST(PackBfloat16, RoundsEveryNormalFloatAndZeroToNearestEven) {
  if (!CpuHasAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  for (const uint32_t sign : {0u, 0x80000000u}) {
    uint32_t bad = 0;
    // Normal floats: exponent fields 1 to 254, every significand (ties and
    // the carries into the exponent, up to infinity, among them).
    EXPECT_EQ(Mismatches(sign, 0x00800000u, 0x7F800000u, &bad), 0)
        << "first at float bits 0x" << std::hex << bad;
    // The zero itself (the vector's other lanes are subnormal: not compared).
    const int64_t zeros = Mismatches(sign, 0, 32, &bad);
    ASSERT_GE(zeros, 0) << "AVX3 did not run";
    EXPECT_TRUE(zeros == 0 || bad != sign) << "zero of sign 0x" << std::hex << sign;
  }
}

TEST(PackBfloat16, SubnormalsReadAsZeroWhichIsWhyTheKernelAvoidsThem) {
  // The reason for UniformParams::bf16_pack: without it this test's premise
  // would not hold, and the parameter check would be needless.
  if (!CpuHasAvx512Bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16";
  uint32_t bad = 0;
  EXPECT_GT(Mismatches(0, 0x00400000u, 0x00400020u, &bad), 0);  // 2^-127 and up
}

}  // namespace
}  // namespace randtensor
#endif  // HWY_ONCE
