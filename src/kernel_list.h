// The one list of kernels. Every per-target table (kernels.cc), the per-kernel
// tests (tests/kernels_test.cc) and the benchmarks expand these lists, so a
// kernel cannot be added without being built for every target, tested and
// measured.
//
// Generate kernels turn Philox blocks into elements of one type and
// distribution, in registers, right after the rounds: X(kind, element type,
// stream words per element, kernel unit, converter). Kinds whose elements
// differ only in a parameter share a converter of their element size (and
// so one compiled kernel): Bernoulli's int32 and float32, and its float16
// and bfloat16, differ only in the bits of 1. The converter is a
// struct of namespace convert (src/convert/<distribution>-inl.h) that the
// run driver (src/run-inl.h) calls; the unit is the translation unit that
// compiles the kind for every target (RANDTENSOR_KERNEL_UNITS). Adding a
// distribution or an output type adds a line here and its converter; the
// driver, writer, tiling, threads and stores need nothing new
// (docs/architecture.md, "How to add a distribution").
//
// Move kernels place elements that were generated into L1 (copy, tile
// transpose, scatter, reversed tile), keyed by element size alone:
// X(size in bytes, unsigned type of that size).
#ifndef RANDTENSOR_SRC_KERNEL_LIST_H_
#define RANDTENSOR_SRC_KERNEL_LIST_H_

#include <cstdint>

#define RANDTENSOR_GENERATE_KERNELS(X)                                   \
  X(kBitsUint32, uint32_t, 1, Bits, Bits)                                \
  X(kUniformFloat32, float, 1, Uniform, UniformFloat32)                  \
  X(kUniformFloat16, uint16_t, 1, Uniform, UniformFloat16)               \
  X(kUniformBfloat16, uint16_t, 1, Uniform, UniformBfloat16)             \
  X(kNormalFloat32, float, 1, Normal32, NormalFloat32)                   \
  X(kNormalFloat16, uint16_t, 1, Normal16, NormalFloat16)                \
  X(kNormalBfloat16, uint16_t, 1, Normal16, NormalBfloat16)              \
  X(kBernoulliUint8, uint8_t, 1, Bernoulli, BernoulliUint8)              \
  X(kBernoulliInt32, int32_t, 1, Bernoulli, Bernoulli32)                 \
  X(kBernoulliFloat32, float, 1, Bernoulli, Bernoulli32)                 \
  X(kBernoulliFloat16, uint16_t, 1, Bernoulli, Bernoulli16)              \
  X(kBernoulliBfloat16, uint16_t, 1, Bernoulli, Bernoulli16)             \
  X(kIntegersInt32, int32_t, 1, Integers32, IntegersInt32)               \
  X(kIntegersInt64, int64_t, 1, Integers64, IntegersInt64)               \
  X(kIntegersFloat32, float, 1, Integers32, IntegersFloat32)             \
  X(kIntegersFloat64, double, 1, Integers64, IntegersFloat64)            \
  X(kUniformFloat64, double, 2, Uniform, UniformFloat64)                 \
  X(kBernoulliFloat64, double, 2, Bernoulli, BernoulliFloat64)           \
  X(kIntegersWideInt32, int32_t, 2, IntegersWide, IntegersWideInt32)     \
  X(kIntegersWideInt64, int64_t, 2, IntegersWide, IntegersWideInt64)     \
  X(kIntegersWideFloat64, double, 2, IntegersWide, IntegersWideFloat64)  \
  X(kNormalFloat64, double, 2, Normal64, NormalFloat64)                  \
  X(kExponentialFloat32, float, 1, Exponential, ExponentialFloat32)      \
  X(kExponentialFloat16, uint16_t, 1, Exponential, ExponentialFloat16)   \
  X(kExponentialBfloat16, uint16_t, 1, Exponential, ExponentialBfloat16) \
  X(kExponentialFloat64, double, 2, Exponential, ExponentialFloat64)     \
  X(kCauchyFloat32, float, 1, Cauchy, CauchyFloat32)                     \
  X(kCauchyFloat16, uint16_t, 1, Cauchy, CauchyFloat16)                  \
  X(kCauchyBfloat16, uint16_t, 1, Cauchy, CauchyBfloat16)                \
  X(kCauchyFloat64, double, 2, Cauchy, CauchyFloat64)                    \
  X(kLogNormalFloat32, float, 1, LogNormal, LogNormalFloat32)            \
  X(kLogNormalFloat16, uint16_t, 1, LogNormal, LogNormalFloat16)         \
  X(kLogNormalBfloat16, uint16_t, 1, LogNormal, LogNormalBfloat16)       \
  X(kLogNormalFloat64, double, 2, LogNormal, LogNormalFloat64)           \
  X(kGeometricFloat32, float, 1, Geometric, GeometricFloat32)            \
  X(kGeometricFloat16, uint16_t, 1, Geometric, GeometricFloat16)         \
  X(kGeometricBfloat16, uint16_t, 1, Geometric, GeometricBfloat16)       \
  X(kGeometricUint8, uint8_t, 1, GeometricIntegers, GeometricUint8)      \
  X(kGeometricInt32, int32_t, 1, GeometricIntegers, GeometricInt32)      \
  X(kGeometricInt64, int64_t, 1, GeometricIntegers, GeometricInt64)      \
  X(kGeometricFloat64, double, 2, Geometric, GeometricFloat64)

#define RANDTENSOR_MOVE_SIZES(X) \
  X(1, uint8_t)                  \
  X(2, uint16_t)                 \
  X(4, uint32_t)                 \
  X(8, uint64_t)

namespace randtensor {
namespace detail {

// What a generate kernel produces: one per line of RANDTENSOR_GENERATE_KERNELS.
enum class GenerateKind : int {
#define RANDTENSOR_KIND_ENUM(kind, type, words, unit, converter) kind,
  RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_KIND_ENUM)
#undef RANDTENSOR_KIND_ENUM
  kCount
};
constexpr int kGenerateKinds = static_cast<int>(GenerateKind::kCount);

// The element type and stream words per element of a kind, at compile time.
template <GenerateKind kKind>
struct KindTraits;
#define RANDTENSOR_KIND_TRAITS(kind, type, words, unit, converter) \
  template <>                                                     \
  struct KindTraits<GenerateKind::kind> {                         \
    using Type = type;                                            \
    static constexpr int kWords = words;                          \
  };
RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_KIND_TRAITS)
#undef RANDTENSOR_KIND_TRAITS

// The translation units (src/kernels_<unit>.cc) that compile the kinds'
// kernels for every target, each kind in the one its list line names: the
// units compile in parallel, and none takes the build's time alone
// (Box-Muller's normals get units of their own; integers, whose remainders
// are the longest to compile under sanitizers, three: 4-byte and 8-byte
// outputs of one word, and two words; geometric two: floats and integers).
#define RANDTENSOR_KERNEL_UNITS(X) \
  X(Bits)                          \
  X(Uniform)                       \
  X(Normal32)                      \
  X(Normal16)                      \
  X(Normal64)                      \
  X(Bernoulli)                     \
  X(Integers32)                    \
  X(Integers64)                    \
  X(IntegersWide)                  \
  X(Exponential)                   \
  X(Cauchy)                        \
  X(LogNormal)                     \
  X(Geometric)                     \
  X(GeometricIntegers)

enum class KernelUnit : int {
#define RANDTENSOR_UNIT_ENUM(unit) k##unit,
  RANDTENSOR_KERNEL_UNITS(RANDTENSOR_UNIT_ENUM)
#undef RANDTENSOR_UNIT_ENUM
};

constexpr KernelUnit UnitOf(GenerateKind kind) {
  switch (kind) {
#define RANDTENSOR_KIND_UNIT(kind, type, words, unit, converter) \
  case GenerateKind::kind:                                       \
    return KernelUnit::k##unit;
    RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_KIND_UNIT)
#undef RANDTENSOR_KIND_UNIT
    case GenerateKind::kCount: break;
  }
  return KernelUnit::kBits;
}

// The kind's name in the list ("kUniformFloat32"), for tests and benchmarks.
constexpr const char* KindName(GenerateKind kind) {
  switch (kind) {
#define RANDTENSOR_KIND_NAME(kind, type, words, unit, converter) \
  case GenerateKind::kind:                                       \
    return #kind;
    RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_KIND_NAME)
#undef RANDTENSOR_KIND_NAME
    case GenerateKind::kCount: break;
  }
  return "?";
}

// Element sizes with move kernels: 1, 2, 4, 8 bytes, by log2.
constexpr int kMoveSizes = 4;
constexpr int MoveIndex(int element_size) {
  return element_size == 1 ? 0 : element_size == 2 ? 1 : element_size == 4 ? 2 : 3;
}

// Bytes per element and stream words per element of each kind.
constexpr int ElementBytes(GenerateKind kind) {
  switch (kind) {
#define RANDTENSOR_KIND_BYTES(kind, type, words, unit, converter) \
  case GenerateKind::kind:                                        \
    return static_cast<int>(sizeof(type));
    RANDTENSOR_GENERATE_KERNELS(RANDTENSOR_KIND_BYTES)
#undef RANDTENSOR_KIND_BYTES
    case GenerateKind::kCount: break;
  }
  return 0;
}
constexpr int WordsPerElement(GenerateKind kind) {
  switch (kind) {
#define RANDTENSOR_KIND_WORDS(kind, type, words, unit, converter) \
  case GenerateKind::kind:                                        \
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
