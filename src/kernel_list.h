// The one list of kernels. Every per-target table (kernels.cc), the per-kernel
// tests (tests/kernels_test.cc) and the benchmarks expand these lists, so a
// kernel cannot be added without being built for every target, tested and
// measured.
//
// Generate kernels turn Philox blocks into elements of one type and
// distribution, in registers, right after the rounds: X(kind, element type,
// stream words per element). Adding a distribution or an output type adds a
// line here and its conversion in convert-inl.h; the writer, tiling,
// threads and stores need nothing new (docs/architecture.md).
//
// Move kernels place elements that were generated into L1 (copy, tile
// transpose, scatter, reversed tile), keyed by element size alone:
// X(size in bytes, unsigned type of that size).
#ifndef RANDTENSOR_SRC_KERNEL_LIST_H_
#define RANDTENSOR_SRC_KERNEL_LIST_H_

#include <cstdint>

#define RANDTENSOR_GENERATE_KERNELS(X) \
  X(kBitsUint32, uint32_t, 1)          \
  X(kUniformFloat32, float, 1)         \
  X(kUniformFloat16, uint16_t, 1)      \
  X(kUniformBfloat16, uint16_t, 1)     \
  X(kNormalFloat32, float, 1)          \
  X(kNormalFloat16, uint16_t, 1)       \
  X(kNormalBfloat16, uint16_t, 1)      \
  X(kBernoulliUint8, uint8_t, 1)       \
  X(kBernoulliInt32, int32_t, 1)       \
  X(kBernoulliFloat32, float, 1)       \
  X(kBernoulliFloat16, uint16_t, 1)    \
  X(kBernoulliBfloat16, uint16_t, 1)   \
  X(kIntegersInt32, int32_t, 1)        \
  X(kIntegersInt64, int64_t, 1)        \
  X(kIntegersFloat32, float, 1)        \
  X(kIntegersFloat64, double, 1)       \
  X(kUniformFloat64, double, 2)        \
  X(kBernoulliFloat64, double, 2)      \
  X(kIntegersWideInt32, int32_t, 2)    \
  X(kIntegersWideInt64, int64_t, 2)    \
  X(kIntegersWideFloat64, double, 2)   \
  X(kNormalFloat64, double, 2)

#define RANDTENSOR_MOVE_SIZES(X) \
  X(1, uint8_t)                  \
  X(2, uint16_t)                 \
  X(4, uint32_t)                 \
  X(8, uint64_t)

namespace randtensor {
namespace detail {

// What a generate kernel produces: one per line of RANDTENSOR_GENERATE_KERNELS.
enum class GenerateKind : int {
#define RANDTENSOR_KIND_ENUM(kind, type, words) kind,
  RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_KIND_ENUM)
#undef RANDTENSOR_KIND_ENUM
  kCount
};
constexpr int kGenerateKinds = static_cast<int>(GenerateKind::kCount);

// The element type and stream words per element of a kind, at compile time.
template <GenerateKind kKind>
struct KindTraits;
#define RANDTENSOR_KIND_TRAITS(kind, type, words) \
  template <>                                     \
  struct KindTraits<GenerateKind::kind> {         \
    using Type = type;                            \
    static constexpr int kWords = words;          \
  };
RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_KIND_TRAITS)
#undef RANDTENSOR_KIND_TRAITS

// The translation unit (src/kernels_<unit>.cc) that compiles each kind's
// kernels for every target: the units compile in parallel, and none takes
// the build's time alone (Box-Muller's normals, the longest to compile, get
// units of their own). A new kind needs a case here (the switch has no
// default, so the compiler names a missing one).
#define RANDTENSOR_KERNEL_UNITS(X) \
  X(Bits)                          \
  X(Uniform)                       \
  X(Normal32)                      \
  X(Normal16)                      \
  X(Normal64)                      \
  X(Bernoulli)                     \
  X(Integers)

enum class KernelUnit : int {
#define RANDTENSOR_UNIT_ENUM(unit) k##unit,
  RANDTENSOR_KERNEL_UNITS(RANDTENSOR_UNIT_ENUM)
#undef RANDTENSOR_UNIT_ENUM
};

constexpr KernelUnit UnitOf(GenerateKind kind) {
  switch (kind) {
    case GenerateKind::kBitsUint32: return KernelUnit::kBits;
    case GenerateKind::kUniformFloat32:
    case GenerateKind::kUniformFloat16:
    case GenerateKind::kUniformBfloat16:
    case GenerateKind::kUniformFloat64: return KernelUnit::kUniform;
    case GenerateKind::kNormalFloat32: return KernelUnit::kNormal32;
    case GenerateKind::kNormalFloat16:
    case GenerateKind::kNormalBfloat16: return KernelUnit::kNormal16;
    case GenerateKind::kNormalFloat64: return KernelUnit::kNormal64;
    case GenerateKind::kBernoulliUint8:
    case GenerateKind::kBernoulliInt32:
    case GenerateKind::kBernoulliFloat32:
    case GenerateKind::kBernoulliFloat16:
    case GenerateKind::kBernoulliBfloat16:
    case GenerateKind::kBernoulliFloat64: return KernelUnit::kBernoulli;
    case GenerateKind::kIntegersInt32:
    case GenerateKind::kIntegersInt64:
    case GenerateKind::kIntegersFloat32:
    case GenerateKind::kIntegersFloat64:
    case GenerateKind::kIntegersWideInt32:
    case GenerateKind::kIntegersWideInt64:
    case GenerateKind::kIntegersWideFloat64: return KernelUnit::kIntegers;
    case GenerateKind::kCount: break;
  }
  return KernelUnit::kBits;
}

// Element sizes with move kernels: 1, 2, 4, 8 bytes, by log2.
constexpr int kMoveSizes = 4;
constexpr int MoveIndex(int element_size) {
  return element_size == 1 ? 0 : element_size == 2 ? 1 : element_size == 4 ? 2 : 3;
}

// Bytes per element and stream words per element of each kind.
constexpr int ElementBytes(GenerateKind kind) {
  switch (kind) {
#define RANDTENSOR_KIND_BYTES(kind, type, words) \
  case GenerateKind::kind:                       \
    return static_cast<int>(sizeof(type));
    RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_KIND_BYTES)
#undef RANDTENSOR_KIND_BYTES
    case GenerateKind::kCount: break;
  }
  return 0;
}
constexpr int WordsPerElement(GenerateKind kind) {
  switch (kind) {
#define RANDTENSOR_KIND_WORDS(kind, type, words) \
  case GenerateKind::kind:                       \
    return words;
    RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_KIND_WORDS)
#undef RANDTENSOR_KIND_WORDS
    case GenerateKind::kCount: break;
  }
  return 0;
}

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_KERNEL_LIST_H_
