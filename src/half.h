// float16 and bfloat16 bit patterns from float and back, in plain C++: the
// host-side twins of src/convert/common-inl.h's vector conversions (round to nearest,
// ties to even; finite inputs), for the per-fill constants of uniform.
#ifndef RANDTENSOR_SRC_HALF_H_
#define RANDTENSOR_SRC_HALF_H_

#include <cstdint>
#include <cstring>

namespace randtensor {
namespace detail {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t Float16Bits(float f) {
  uint32_t x = FloatBits(f);
  const uint32_t sign = x & 0x80000000u;
  x ^= sign;
  uint32_t out;
  if (x > 0x477FEFFFu) {
    out = 0x7C00u;  // rounds past the largest float16: infinity
  } else if (x < 0x38800000u) {
    const float magic = BitsFloat(0x3F000000u);  // subnormal: the add rounds
    out = FloatBits(BitsFloat(x) + magic) - 0x3F000000u;
  } else {
    out = (x + 0xC8000FFFu + ((x >> 13) & 1u)) >> 13;
  }
  return static_cast<uint16_t>(out | (sign >> 16));
}

inline uint16_t Bfloat16Bits(float f) {
  const uint32_t x = FloatBits(f);
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

// The float value of a float16 (finite) / bfloat16 bit pattern: exact.
inline float Float16Value(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float v = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -v : v;
  }
  return BitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}
inline float Bfloat16Value(uint16_t b) { return BitsFloat(uint32_t{b} << 16); }

}  // namespace detail
}  // namespace randtensor

#endif  // RANDTENSOR_SRC_HALF_H_
