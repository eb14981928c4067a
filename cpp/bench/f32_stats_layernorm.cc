// Bench-only lower bound, not part of the library: LayerNorm with its statistics summed in float32,
// sum and sum of squares in one pass (variance = E[x²] − mean²), then one output pass. This is what
// one-pass float32 implementations (onnxruntime's CPU LayerNorm among them) compute, in wasm
// SIMD128 and without their scalar code. It makes the same loads and stores as the float64-
// statistics kernel with about half its vector arithmetic, so its time, measured on the same CPU in
// the same run, is the floor that kernel is compared with.
// It loses the variance of rows with a large common offset (1e4 + N(0, 1)): the benchmark's
// activation-like rows are the only data it is meant for.
//
// Built by web/bench/f32stats-build.mjs (emcc -O3 -msimd128, no libc, no allocation: the caller
// places x, y, gamma and beta in the module's memory).
#include <wasm_simd128.h>

extern "C" void layernorm_f32_stats(const float* x, float* y, const float* gamma, const float* beta,
                                    int rows, int d, float eps) {
  const int d8 = d & ~7;
  for (int r = 0; r < rows; ++r, x += d, y += d) {
    // Two vectors per step, each with its own accumulators: four independent add chains.
    v128_t s0 = wasm_f32x4_splat(0.f), s1 = s0, q0 = s0, q1 = s0;
    for (int i = 0; i < d8; i += 8) {
      const v128_t a = wasm_v128_load(x + i), b = wasm_v128_load(x + i + 4);
      s0 = wasm_f32x4_add(s0, a);
      s1 = wasm_f32x4_add(s1, b);
      q0 = wasm_f32x4_add(q0, wasm_f32x4_mul(a, a));
      q1 = wasm_f32x4_add(q1, wasm_f32x4_mul(b, b));
    }
    const v128_t s = wasm_f32x4_add(s0, s1), q = wasm_f32x4_add(q0, q1);
    float sum = wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) +
                wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3);
    float sumsq = wasm_f32x4_extract_lane(q, 0) + wasm_f32x4_extract_lane(q, 1) +
                  wasm_f32x4_extract_lane(q, 2) + wasm_f32x4_extract_lane(q, 3);
    for (int i = d8; i < d; ++i) {
      sum += x[i];
      sumsq += x[i] * x[i];
    }
    const float mean = sum / d;
    float var = sumsq / d - mean * mean;
    if (var < 0.f) var = 0.f;  // cancellation can make it negative; keeps the output finite
    const float rstd = 1.f / __builtin_sqrtf(var + eps);

    const v128_t m = wasm_f32x4_splat(mean), k = wasm_f32x4_splat(rstd);
    int i = 0;
    for (; i + 4 <= d; i += 4) {
      const v128_t t = wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(x + i), m), k);
      wasm_v128_store(y + i, wasm_f32x4_add(wasm_f32x4_mul(t, wasm_v128_load(gamma + i)),
                                            wasm_v128_load(beta + i)));
    }
    for (; i < d; ++i) y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];
  }
}
