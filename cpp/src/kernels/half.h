// IEEE binary16 (float16) and bfloat16 to and from float32, one value at a time. Widening is exact;
// narrowing rounds to nearest, ties to even, and turns every NaN into the quiet NaN of the type
// (0x7e00, 0x7fc0) with its sign. The vector versions in wasmsimd_ops.h give the same bits; these
// are the scalar kernel's, the kernels' tails', and the tests' definition.
#ifndef LAYERNORM_KERNELS_HALF_H_
#define LAYERNORM_KERNELS_HALF_H_

#include <cstdint>
#include <cstring>

namespace layernorm::kernels {

inline std::uint32_t FloatBits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float BitsFloat(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The exponent and mantissa move up 13 bits; scaling by 2^112 then rebiases the exponent (and
// turns a subnormal half, a subnormal float at that point, into the normal float it is).
inline float F16ToF32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t em = h & 0x7fffu;
  if (em >= 0x7c00u) return BitsFloat(sign | 0x7f800000u | (em << 13));  // Inf, NaN (payload kept)
  return BitsFloat(sign | FloatBits(BitsFloat(em << 13) * 0x1p112f));
}

inline std::uint16_t F32ToF16(float f) {
  std::uint32_t u = FloatBits(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  u &= 0x7fffffffu;
  std::uint32_t h;
  if (u >= 0x47800000u) {  // |f| >= 65536 (rounds to Inf), Inf or NaN
    h = u > 0x7f800000u ? 0x7e00u : 0x7c00u;
  } else if (u < 0x38800000u) {  // |f| < 2^-14: a subnormal half or zero
    // Adding 0.5 (2^-1) aligns the value's bits at the half's subnormal spacing, 2^-24, and the
    // float addition rounds to nearest even exactly there.
    h = FloatBits(BitsFloat(u) + 0.5f) - 0x3f000000u;
  } else {
    const std::uint32_t odd = (u >> 13) & 1u;
    h = (u - 0x38000000u + 0x0fffu + odd) >> 13;  // rebias by -112, round to nearest even
  }
  return static_cast<std::uint16_t>(h | sign);
}

inline float BF16ToF32(std::uint16_t b) { return BitsFloat(static_cast<std::uint32_t>(b) << 16); }

inline std::uint16_t F32ToBF16(float f) {
  const std::uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<std::uint16_t>(((u >> 16) & 0x8000u) | 0x7fc0u);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_HALF_H_
