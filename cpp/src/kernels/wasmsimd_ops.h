// wasm SIMD128 "ISA" for row_ukernels.h. The only file that includes SIMD intrinsics. Built for
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

#include "kernels/inline.h"

namespace layernorm::kernels {

struct WasmSimdOps {
  using F32 = v128_t;  // 4 x float
  using F64 = v128_t;  // 2 x double

  LAYERNORM_INLINE static F32 Load(const float* p) { return wasm_v128_load(p); }
  LAYERNORM_INLINE static void Store(float* p, F32 a) { wasm_v128_store(p, a); }
  LAYERNORM_INLINE static F32 Splat32(float s) { return wasm_f32x4_splat(s); }
  LAYERNORM_INLINE static F64 Splat64(double s) { return wasm_f64x2_splat(s); }
  LAYERNORM_INLINE static F32 Add32(F32 a, F32 b) { return wasm_f32x4_add(a, b); }
  LAYERNORM_INLINE static F32 Sub32(F32 a, F32 b) { return wasm_f32x4_sub(a, b); }
  LAYERNORM_INLINE static F32 Mul32(F32 a, F32 b) { return wasm_f32x4_mul(a, b); }
  LAYERNORM_INLINE static F64 Add64(F64 a, F64 b) { return wasm_f64x2_add(a, b); }
  LAYERNORM_INLINE static F64 Sub64(F64 a, F64 b) { return wasm_f64x2_sub(a, b); }
  LAYERNORM_INLINE static F64 Mul64(F64 a, F64 b) { return wasm_f64x2_mul(a, b); }
  // Two floats from memory, widened to doubles.
  LAYERNORM_INLINE static F64 LoadPromote(const float* p) {
    return wasm_f64x2_promote_low_f32x4(wasm_v128_load64_zero(p));
  }
  LAYERNORM_INLINE static F64 PromoteLo(F32 a) { return wasm_f64x2_promote_low_f32x4(a); }
  LAYERNORM_INLINE static F64 PromoteHi(F32 a) {
    return wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(a, a, 2, 3, 2, 3));
  }
  LAYERNORM_INLINE static F32 Demote(F64 lo, F64 hi) {
    return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0,
                              1, 4, 5);
  }
  LAYERNORM_INLINE static double Lane0(F64 a) { return wasm_f64x2_extract_lane(a, 0); }
  LAYERNORM_INLINE static double Lane1(F64 a) { return wasm_f64x2_extract_lane(a, 1); }
  // acc, lane by lane, raised to |v| when that is larger as bits (a NaN is above +Inf).
  LAYERNORM_INLINE static F32 MaxAbsBits(F32 acc, F32 v) {
    return wasm_u32x4_max(acc, wasm_v128_and(v, U32(0x7fffffffu)));
  }
  // The largest lane as bits (of lanes that MaxAbsBits made non-negative).
  LAYERNORM_INLINE static float MaxLane(F32 a) {
    const v128_t m = wasm_u32x4_max(a, wasm_i32x4_shuffle(a, a, 2, 3, 0, 1));
    return wasm_f32x4_extract_lane(wasm_u32x4_max(m, wasm_i32x4_shuffle(m, m, 1, 0, 3, 2)), 0);
  }

  // float16 and bfloat16, 8 values per 128-bit load or store, with the rounding and NaN rules of
  // half.h (their only users are the staging, the statistics and the residual add: 16-bit rows
  // are normalized as float32, src/schedule.h). What can be done on all 8 values at once (16-bit
  // lanes: signs, masks, the narrowing) is; only the float arithmetic needs 32-bit lanes.
  // Each half becomes a float32's upper 16 bits (sign, exponent, 7 mantissa bits: an arithmetic
  // shift by 3 on 16-bit lanes, the three copies of the sign masked off) and lower 16 (the last 3
  // mantissa bits, shifted up by 13); that float32 times 2^112 is the half's value: the exponent
  // rebiased, a subnormal half (a subnormal float32 before the multiply) normalized, exactly.
  // Inf and NaN come out of the multiply as 2^16 or more with their mantissa intact, and take the
  // all-ones exponent after it (before, a signaling NaN would be quieted). 13 integer operations
  // and 2 multiplies for 8 values.
  LAYERNORM_INLINE static void LoadF16x8(const std::uint16_t* p, F32* lo, F32* hi) {
    const v128_t h = wasm_v128_load(p);
    const v128_t top =
        wasm_v128_and(wasm_i16x8_shr(h, 3), wasm_i16x8_splat(static_cast<std::int16_t>(0x8fff)));
    const v128_t bottom = wasm_i16x8_shl(h, 13);
    const v128_t special = wasm_v128_and(
        wasm_i16x8_gt(wasm_v128_and(h, wasm_i16x8_splat(0x7fff)), wasm_i16x8_splat(0x7bff)),
        wasm_i16x8_splat(0x7f80));
    const v128_t zero = wasm_i32x4_splat(0);
    const v128_t rebias = wasm_f32x4_splat(0x1p112f);
    *lo = wasm_v128_or(
        wasm_f32x4_mul(wasm_i16x8_shuffle(bottom, top, 0, 8, 1, 9, 2, 10, 3, 11), rebias),
        wasm_i16x8_shuffle(zero, special, 0, 8, 1, 9, 2, 10, 3, 11));
    *hi = wasm_v128_or(
        wasm_f32x4_mul(wasm_i16x8_shuffle(bottom, top, 4, 12, 5, 13, 6, 14, 7, 15), rebias),
        wasm_i16x8_shuffle(zero, special, 4, 12, 5, 13, 6, 14, 7, 15));
  }

  // Outputs are almost always normal float16 values: then each rounds to nearest even with
  // integer operations alone, and the rounded bits themselves say whether it was one (from 0x0400,
  // the smallest normal, to 0x7bff, the largest; a subnormal, zero, overflowing or non-finite
  // value lands outside, the saturating narrowing included). Any such lane sends the 8 through
  // the exact general conversion. ~19 operations for 8 values where that one takes ~31.
  LAYERNORM_INLINE static void StoreF16x8(std::uint16_t* p, F32 lo, F32 hi) {
    const v128_t magnitude =
        wasm_u16x8_narrow_i32x4(NormalHalf(wasm_v128_and(lo, U32(0x7fffffffu))),
                                NormalHalf(wasm_v128_and(hi, U32(0x7fffffffu))));
    if (wasm_v128_any_true(NotNormalHalf(magnitude))) return StoreF16x8Exact(p, lo, hi);
    wasm_v128_store(p, wasm_v128_or(magnitude, HalfSign(lo, hi)));
  }
  // (Rare: a function of its own rather than a copy in every loop that stores.)
  __attribute__((noinline)) static void StoreF16x8Exact(std::uint16_t* p, F32 lo, F32 hi) {
    const v128_t magnitude = wasm_i16x8_narrow_i32x4(HalfMagnitude(lo), HalfMagnitude(hi));
    const v128_t nan = wasm_i16x8_narrow_i32x4(IsNaN(lo), IsNaN(hi));
    const v128_t sign = wasm_i16x8_narrow_i32x4(SignBit(lo), SignBit(hi));
    const v128_t quiet = wasm_i16x8_splat(0x7e00);
    wasm_v128_store(p, wasm_v128_or(wasm_v128_bitselect(quiet, magnitude, nan), sign));
  }
  LAYERNORM_INLINE static void LoadBF16x8(const std::uint16_t* p, F32* lo, F32* hi) {
    // A bfloat16 is the top half of its float32: each value goes above a zero half.
    const v128_t b = wasm_v128_load(p);
    const v128_t zero = wasm_i32x4_splat(0);
    *lo = wasm_i16x8_shuffle(zero, b, 0, 8, 1, 9, 2, 10, 3, 11);
    *hi = wasm_i16x8_shuffle(zero, b, 4, 12, 5, 13, 6, 14, 7, 15);
  }
  // The rounding carries the sign along; only a NaN (which the rounding could turn into Inf) needs
  // the general path (NotFiniteSum says which groups go there).
  LAYERNORM_INLINE static void StoreBF16x8(std::uint16_t* p, F32 lo, F32 hi) {
    if (wasm_v128_any_true(NotFiniteSum(lo, hi))) return StoreBF16x8Exact(p, lo, hi);
    wasm_v128_store(p, wasm_u16x8_narrow_i32x4(BrainRounded(lo), BrainRounded(hi)));
  }
  __attribute__((noinline)) static void StoreBF16x8Exact(std::uint16_t* p, F32 lo, F32 hi) {
    const v128_t rounded = wasm_u16x8_narrow_i32x4(BrainRounded(lo), BrainRounded(hi));
    const v128_t nan = wasm_i16x8_narrow_i32x4(IsNaN(lo), IsNaN(hi));
    const v128_t sign = wasm_i16x8_narrow_i32x4(SignBit(lo), SignBit(hi));
    const v128_t quiet = wasm_v128_or(sign, wasm_i16x8_splat(0x7fc0));
    wasm_v128_store(p, wasm_v128_bitselect(quiet, rounded, nan));
  }

  // Many groups of 8 in a row (Narrow in row_ukernels.h): the fast path's bits are stored whatever
  // they are, and the lanes where they are wrong (as StoreF16x8 / StoreBF16x8 tell them) are marked
  // in *redo, for the caller to store again through those once the range is done. With no branch
  // per group the loop is one block, and V8 then keeps its constants in registers: in a block of
  // its own after the branch, each was rebuilt on every iteration (3 instructions).
  LAYERNORM_INLINE static void StoreF16x8Fast(std::uint16_t* p, F32 lo, F32 hi, F32* redo) {
    const v128_t magnitude =
        wasm_u16x8_narrow_i32x4(NormalHalf(wasm_v128_and(lo, U32(0x7fffffffu))),
                                NormalHalf(wasm_v128_and(hi, U32(0x7fffffffu))));
    *redo = wasm_v128_or(*redo, NotNormalHalf(magnitude));
    wasm_v128_store(p, wasm_v128_or(magnitude, HalfSign(lo, hi)));
  }
  // A NaN is the only value the rounding gets wrong.
  LAYERNORM_INLINE static void StoreBF16x8Fast(std::uint16_t* p, F32 lo, F32 hi, F32* redo) {
    *redo = wasm_v128_or(*redo, NotFiniteSum(lo, hi));
    wasm_v128_store(p, wasm_u16x8_narrow_i32x4(BrainRounded(lo), BrainRounded(hi)));
  }
  LAYERNORM_INLINE static bool AnyLane(F32 mask) { return wasm_v128_any_true(mask); }

 private:
  LAYERNORM_INLINE static v128_t U32(std::uint32_t u) {
    return wasm_i32x4_splat(static_cast<std::int32_t>(u));
  }

  // The float16 bits of |f| (finite f), rounded to nearest even by a float32 addition: |f| is
  // scaled by 4 (overflowing to Inf from 2^16 on, through the 2^112 step), then added to a power of
  // two 2^15 times its own exponent (at least 2^1, the subnormal halves' case), which leaves the
  // half's 10 mantissa bits at the bottom of the sum's 23, rounded; the exponent of the sum is the
  // half's exponent, rebiased, and a carry out of the mantissa moves into it by the addition.
  LAYERNORM_INLINE static v128_t HalfMagnitude(F32 f) {
    const v128_t a = wasm_v128_and(f, U32(0x7fffffffu));
    const v128_t scaled =
        wasm_f32x4_mul(wasm_f32x4_mul(a, wasm_f32x4_splat(0x1p112f)), wasm_f32x4_splat(0x1p-110f));
    const v128_t exponent = wasm_i32x4_max(wasm_v128_and(a, U32(0x7f800000u)), U32(0x38800000u));
    const v128_t sum = wasm_f32x4_add(wasm_i32x4_add(exponent, U32(0x07800000u)), scaled);
    return wasm_i32x4_add(wasm_v128_and(wasm_u32x4_shr(sum, 13), U32(0x7c00u)),
                          wasm_v128_and(sum, U32(0x0fffu)));
  }

  // |f|'s float16 bits where they are normal: the exponent rebiased by -112, the mantissa rounded
  // to 10 bits, to nearest even (a carry moves into the exponent). Other magnitudes give values
  // outside [0x0400, 0x7bff] (below 2^-14 the rebiasing wraps around to the top).
  LAYERNORM_INLINE static v128_t NormalHalf(v128_t a) {
    const v128_t odd = wasm_v128_and(wasm_u32x4_shr(a, 13), U32(1u));
    return wasm_u32x4_shr(wasm_i32x4_add(wasm_i32x4_add(a, U32(0x0fffu - 0x38000000u)), odd), 13);
  }

  // All ones in the 16-bit lanes of NormalHalf's narrowed bits that are not a normal half (outside
  // [0x0400, 0x7bff]): adding 0x0400 (wrapping) takes exactly those to below 0x0800 as signed
  // integers (the ones above 0x7bff to 0x8000 or more, the ones below 0x0400 to 0x0400-0x07ff), a
  // single signed comparison where an unsigned one is four instructions on x64.
  LAYERNORM_INLINE static v128_t NotNormalHalf(v128_t magnitude) {
    return wasm_i16x8_gt(wasm_i16x8_splat(0x0800),
                         wasm_i16x8_add(magnitude, wasm_i16x8_splat(0x0400)));
  }

  // The sign of each of the 8 floats in the top bit of a 16-bit lane (the top bit of each float's
  // upper half).
  LAYERNORM_INLINE static v128_t HalfSign(F32 lo, F32 hi) {
    return wasm_v128_and(wasm_i16x8_shuffle(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15),
                         wasm_i16x8_splat(static_cast<std::int16_t>(0x8000)));
  }

  // The bfloat16 bits of f (not NaN), rounded to nearest even.
  LAYERNORM_INLINE static v128_t BrainRounded(F32 f) {
    const v128_t odd = wasm_v128_and(wasm_u32x4_shr(f, 16), U32(1u));
    return wasm_u32x4_shr(wasm_i32x4_add(wasm_i32x4_add(f, U32(0x7fffu)), odd), 16);
  }

  // All ones in the NaN lanes (signed comparison: the magnitude is at most 0x7fffffff).
  LAYERNORM_INLINE static v128_t IsNaN(F32 f) {
    return wasm_i32x4_gt(wasm_v128_and(f, U32(0x7fffffffu)), U32(0x7f800000u));
  }

  // Bits set in a lane where lo + hi is not finite, clear elsewhere: s - s is +0 for a finite s and
  // NaN otherwise. So every lane pair holding a NaN is marked, and also one with an infinity or a
  // sum that overflows, which the general path then stores to the same bits. Two operations for
  // 8 values, where comparing each vector with itself took five or six (in the range store, LLVM
  // made the OR of the comparisons' mask a select: three x64 instructions); the range store of
  // bfloat16 measured 15% faster.
  LAYERNORM_INLINE static v128_t NotFiniteSum(F32 lo, F32 hi) {
    const v128_t sum = wasm_f32x4_add(lo, hi);
    return wasm_f32x4_sub(sum, sum);
  }

  // The sign alone; a signed saturating narrowing turns it into 0x8000 or 0.
  LAYERNORM_INLINE static v128_t SignBit(F32 f) { return wasm_v128_and(f, U32(0x80000000u)); }
};

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_WASMSIMD_OPS_H_
