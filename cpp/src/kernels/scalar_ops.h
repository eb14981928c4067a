// Scalar "ISA" for row_ukernels.h: 4 float lanes and 2 double lanes as plain arrays, with the
// same lane semantics as wasmsimd_ops.h. This file is compiled without auto-vectorization so the
// scalar build stays scalar.
#ifndef LAYERNORM_KERNELS_SCALAR_OPS_H_
#define LAYERNORM_KERNELS_SCALAR_OPS_H_

#include <cstdint>

#include "kernels/half.h"
#include "kernels/inline.h"

namespace layernorm::kernels {

struct ScalarOps {
  struct F32 {
    float v[4];
  };
  struct F64 {
    double v[2];
  };

  LAYERNORM_INLINE static F32 Load(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
  LAYERNORM_INLINE static void Store(float* p, F32 a) {
    p[0] = a.v[0];
    p[1] = a.v[1];
    p[2] = a.v[2];
    p[3] = a.v[3];
  }
  LAYERNORM_INLINE static F32 Splat32(float s) { return {{s, s, s, s}}; }
  LAYERNORM_INLINE static F64 Splat64(double s) { return {{s, s}}; }
  LAYERNORM_INLINE static F32 Add32(F32 a, F32 b) {
    return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]}};
  }
  LAYERNORM_INLINE static F32 Sub32(F32 a, F32 b) {
    return {{a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2], a.v[3] - b.v[3]}};
  }
  LAYERNORM_INLINE static F32 Mul32(F32 a, F32 b) {
    return {{a.v[0] * b.v[0], a.v[1] * b.v[1], a.v[2] * b.v[2], a.v[3] * b.v[3]}};
  }
  LAYERNORM_INLINE static F64 Add64(F64 a, F64 b) { return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}}; }
  LAYERNORM_INLINE static F64 Sub64(F64 a, F64 b) { return {{a.v[0] - b.v[0], a.v[1] - b.v[1]}}; }
  LAYERNORM_INLINE static F64 Mul64(F64 a, F64 b) { return {{a.v[0] * b.v[0], a.v[1] * b.v[1]}}; }
  LAYERNORM_INLINE static F64 LoadPromote(const float* p) { return {{p[0], p[1]}}; }
  LAYERNORM_INLINE static F64 PromoteLo(F32 a) { return {{a.v[0], a.v[1]}}; }
  LAYERNORM_INLINE static F64 PromoteHi(F32 a) { return {{a.v[2], a.v[3]}}; }
  LAYERNORM_INLINE static F32 Demote(F64 lo, F64 hi) {
    return {{static_cast<float>(lo.v[0]), static_cast<float>(lo.v[1]), static_cast<float>(hi.v[0]),
             static_cast<float>(hi.v[1])}};
  }
  LAYERNORM_INLINE static double Lane0(F64 a) { return a.v[0]; }
  LAYERNORM_INLINE static double Lane1(F64 a) { return a.v[1]; }
  // Lanes are written out here, never looped over: at -Os a loop over the lanes is not unrolled,
  // and the vector it indexes is kept in memory. With MaxAbsBits as such a loop, the one-row call
  // with a gain and a bias (whose first pass takes the largest gain) took 1.7 us, 1.2 us now.
  LAYERNORM_INLINE static F32 MaxAbsBits(F32 acc, F32 v) {
    return {{MaxAbs(acc.v[0], v.v[0]), MaxAbs(acc.v[1], v.v[1]), MaxAbs(acc.v[2], v.v[2]),
             MaxAbs(acc.v[3], v.v[3])}};
  }
  LAYERNORM_INLINE static float MaxLane(F32 a) {
    return MaxBits(MaxBits(a.v[0], a.v[1]), MaxBits(a.v[2], a.v[3]));
  }

  // float16 and bfloat16 lane by lane, with half.h's conversions.
  LAYERNORM_INLINE static void LoadF16x8(const std::uint16_t* p, F32* lo, F32* hi) {
    *lo = LoadF16x4(p);
    *hi = LoadF16x4(p + 4);
  }
  LAYERNORM_INLINE static void StoreF16x8(std::uint16_t* p, F32 lo, F32 hi) {
    StoreF16x4(p, lo);
    StoreF16x4(p + 4, hi);
  }
  LAYERNORM_INLINE static void LoadBF16x8(const std::uint16_t* p, F32* lo, F32* hi) {
    *lo = LoadBF16x4(p);
    *hi = LoadBF16x4(p + 4);
  }
  LAYERNORM_INLINE static void StoreBF16x8(std::uint16_t* p, F32 lo, F32 hi) {
    StoreBF16x4(p, lo);
    StoreBF16x4(p + 4, hi);
  }
  // The range stores of wasmsimd_ops.h: here every lane is rounded exactly, none to redo.
  LAYERNORM_INLINE static void StoreF16x8Fast(std::uint16_t* p, F32 lo, F32 hi, F32*) {
    StoreF16x8(p, lo, hi);
  }
  LAYERNORM_INLINE static void StoreBF16x8Fast(std::uint16_t* p, F32 lo, F32 hi, F32*) {
    StoreBF16x8(p, lo, hi);
  }
  LAYERNORM_INLINE static void StoreF16x8Exact(std::uint16_t* p, F32 lo, F32 hi) {
    StoreF16x8(p, lo, hi);
  }
  LAYERNORM_INLINE static void StoreBF16x8Exact(std::uint16_t* p, F32 lo, F32 hi) {
    StoreBF16x8(p, lo, hi);
  }
  LAYERNORM_INLINE static bool AnyLane(F32) { return false; }

 private:
  // The larger of m and |v| by their bits (a NaN is above +Inf), as the SIMD lanes compare them.
  LAYERNORM_INLINE static float MaxAbs(float m, float v) {
    return MaxBits(m, BitsFloat(FloatBits(v) & 0x7fffffffu));
  }
  LAYERNORM_INLINE static float MaxBits(float a, float b) {
    return FloatBits(b) > FloatBits(a) ? b : a;
  }
  LAYERNORM_INLINE static F32 LoadF16x4(const std::uint16_t* p) {
    return {{F16ToF32(p[0]), F16ToF32(p[1]), F16ToF32(p[2]), F16ToF32(p[3])}};
  }
  LAYERNORM_INLINE static void StoreF16x4(std::uint16_t* p, F32 a) {
    p[0] = F32ToF16(a.v[0]);
    p[1] = F32ToF16(a.v[1]);
    p[2] = F32ToF16(a.v[2]);
    p[3] = F32ToF16(a.v[3]);
  }
  LAYERNORM_INLINE static F32 LoadBF16x4(const std::uint16_t* p) {
    return {{BF16ToF32(p[0]), BF16ToF32(p[1]), BF16ToF32(p[2]), BF16ToF32(p[3])}};
  }
  LAYERNORM_INLINE static void StoreBF16x4(std::uint16_t* p, F32 a) {
    p[0] = F32ToBF16(a.v[0]);
    p[1] = F32ToBF16(a.v[1]);
    p[2] = F32ToBF16(a.v[2]);
    p[3] = F32ToBF16(a.v[3]);
  }
};

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_SCALAR_OPS_H_
