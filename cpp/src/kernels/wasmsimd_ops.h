// wasm SIMD128 "ISA" for row_template.h. The only file that includes SIMD intrinsics. Built for
// wasm32 with -msimd128; natively, SIMDe provides the same intrinsics so the native tests run
// this exact kernel.
#ifndef LAYERNORM_KERNELS_WASMSIMD_OPS_H_
#define LAYERNORM_KERNELS_WASMSIMD_OPS_H_

#include <cstdint>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#endif

namespace layernorm::kernels {

struct WasmSimdOps {
  using F32 = v128_t;  // 4 x float
  using F64 = v128_t;  // 2 x double

  static F32 Load(const float* p) { return wasm_v128_load(p); }
  static void Store(float* p, F32 a) { wasm_v128_store(p, a); }
  static F32 Splat32(float s) { return wasm_f32x4_splat(s); }
  static F64 Splat64(double s) { return wasm_f64x2_splat(s); }
  static F32 Add32(F32 a, F32 b) { return wasm_f32x4_add(a, b); }
  static F32 Sub32(F32 a, F32 b) { return wasm_f32x4_sub(a, b); }
  static F32 Mul32(F32 a, F32 b) { return wasm_f32x4_mul(a, b); }
  static F64 Add64(F64 a, F64 b) { return wasm_f64x2_add(a, b); }
  static F64 Sub64(F64 a, F64 b) { return wasm_f64x2_sub(a, b); }
  static F64 Mul64(F64 a, F64 b) { return wasm_f64x2_mul(a, b); }
  // Two floats from memory, widened to doubles.
  static F64 LoadPromote(const float* p) {
    return wasm_f64x2_promote_low_f32x4(wasm_v128_load64_zero(p));
  }
  static F64 PromoteLo(F32 a) { return wasm_f64x2_promote_low_f32x4(a); }
  static F64 PromoteHi(F32 a) {
    return wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(a, a, 2, 3, 2, 3));
  }
  static F32 Demote(F64 lo, F64 hi) {
    return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0,
                              1, 4, 5);
  }
  static double Lane0(F64 a) { return wasm_f64x2_extract_lane(a, 0); }
  static double Lane1(F64 a) { return wasm_f64x2_extract_lane(a, 1); }

  // float16 and bfloat16, 8 values per 128-bit load or store (4 for the tails of the wide path),
  // with the rounding and NaN rules of half.h; the 32-bit integer lanes hold one value each.
  static void LoadF16x8(const std::uint16_t* p, F32* lo, F32* hi) {
    const v128_t v = wasm_v128_load(p);
    *lo = HalfToFloat(wasm_u32x4_extend_low_u16x8(v));
    *hi = HalfToFloat(wasm_u32x4_extend_high_u16x8(v));
  }
  static F32 LoadF16x4(const std::uint16_t* p) {
    return HalfToFloat(wasm_u32x4_extend_low_u16x8(wasm_v128_load64_zero(p)));
  }
  static void StoreF16x8(std::uint16_t* p, F32 lo, F32 hi) {
    wasm_v128_store(p, wasm_u16x8_narrow_i32x4(FloatToHalf(lo), FloatToHalf(hi)));
  }
  static void StoreF16x4(std::uint16_t* p, F32 a) {
    const v128_t h = FloatToHalf(a);
    wasm_v128_store64_lane(p, wasm_u16x8_narrow_i32x4(h, h), 0);
  }
  static void LoadBF16x8(const std::uint16_t* p, F32* lo, F32* hi) {
    const v128_t v = wasm_v128_load(p);
    *lo = wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(v), 16);
    *hi = wasm_i32x4_shl(wasm_u32x4_extend_high_u16x8(v), 16);
  }
  static F32 LoadBF16x4(const std::uint16_t* p) {
    return wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(wasm_v128_load64_zero(p)), 16);
  }
  static void StoreBF16x8(std::uint16_t* p, F32 lo, F32 hi) {
    wasm_v128_store(p, wasm_u16x8_narrow_i32x4(FloatToBrain(lo), FloatToBrain(hi)));
  }
  static void StoreBF16x4(std::uint16_t* p, F32 a) {
    const v128_t b = FloatToBrain(a);
    wasm_v128_store64_lane(p, wasm_u16x8_narrow_i32x4(b, b), 0);
  }

 private:
  static v128_t U32(std::uint32_t u) { return wasm_i32x4_splat(static_cast<std::int32_t>(u)); }

  // half.h's F16ToF32 on four lanes: the Inf/NaN lanes are picked from their own formula.
  static F32 HalfToFloat(v128_t h) {
    const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, U32(0x8000u)), 16);
    const v128_t em = wasm_v128_and(h, U32(0x7fffu));
    const v128_t shifted = wasm_i32x4_shl(em, 13);
    const v128_t finite = wasm_f32x4_mul(shifted, wasm_f32x4_splat(0x1p112f));
    const v128_t special = wasm_v128_or(shifted, U32(0x7f800000u));
    const v128_t is_special = wasm_u32x4_ge(em, U32(0x7c00u));
    return wasm_v128_or(sign, wasm_v128_bitselect(special, finite, is_special));
  }

  // half.h's F32ToF16 on four lanes: each of its three cases computed, the right one selected.
  static v128_t FloatToHalf(F32 f) {
    const v128_t sign = wasm_v128_and(wasm_u32x4_shr(f, 16), U32(0x8000u));
    const v128_t a = wasm_v128_and(f, U32(0x7fffffffu));
    const v128_t nan = wasm_u32x4_gt(a, U32(0x7f800000u));
    const v128_t big = wasm_v128_bitselect(U32(0x7e00u), U32(0x7c00u), nan);
    const v128_t small =
        wasm_i32x4_sub(wasm_f32x4_add(a, wasm_f32x4_splat(0.5f)), U32(0x3f000000u));
    const v128_t odd = wasm_v128_and(wasm_u32x4_shr(a, 13), U32(1u));
    const v128_t normal =
        wasm_u32x4_shr(wasm_i32x4_add(wasm_i32x4_add(a, U32(0x0fffu - 0x38000000u)), odd), 13);
    const v128_t h = wasm_v128_bitselect(
        big, wasm_v128_bitselect(small, normal, wasm_u32x4_lt(a, U32(0x38800000u))),
        wasm_u32x4_ge(a, U32(0x47800000u)));
    return wasm_v128_or(h, sign);
  }

  // half.h's F32ToBF16 on four lanes.
  static v128_t FloatToBrain(F32 f) {
    const v128_t odd = wasm_v128_and(wasm_u32x4_shr(f, 16), U32(1u));
    const v128_t rounded = wasm_u32x4_shr(wasm_i32x4_add(wasm_i32x4_add(f, U32(0x7fffu)), odd), 16);
    const v128_t quiet =
        wasm_v128_or(wasm_v128_and(wasm_u32x4_shr(f, 16), U32(0x8000u)), U32(0x7fc0u));
    const v128_t nan = wasm_u32x4_gt(wasm_v128_and(f, U32(0x7fffffffu)), U32(0x7f800000u));
    return wasm_v128_bitselect(quiet, rounded, nan);
  }
};

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_WASMSIMD_OPS_H_
