// wasm SIMD128 "ISA" for row_template.h. The only file that includes SIMD intrinsics. Built for
// wasm32 with -msimd128; natively, SIMDe provides the same intrinsics so the native tests run
// this exact kernel.
#ifndef LAYERNORM_KERNELS_WASMSIMD_OPS_H_
#define LAYERNORM_KERNELS_WASMSIMD_OPS_H_

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
};

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_WASMSIMD_OPS_H_
