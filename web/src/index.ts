/**
 * layernorm-wasm: LayerNorm over the last dimension, y = γ ⊙ (x − μ) / √(σ² + ε) + β,
 * computed by C++ kernels compiled to WebAssembly (SIMD128 where available).
 *
 *   const rt = await init();
 *   const y = rt.layerNorm(x, 768, { gamma, beta, eps: 1e-5 });
 *
 * Reading weights and activations (safetensors, GGUF, .npy, JSON, text) is `layernorm-wasm/io`;
 * the explainer (its element, and explainRow for a row's stages) is `layernorm-wasm/explainer`.
 *
 * May import: checks/, core/, errors.ts, loader.ts, norms.ts, numerics/, types.ts.
 */
export { init } from './core/init.js';
export type * from './types.js';
export { DisposedError, UnsupportedError, WasmLoadError } from './errors.js';
export { layerNormReference, normReference, rmsNormReference } from './numerics/reference.js';
export {
  DEFAULT_FORM,
  DEFAULT_NORM,
  NORMS,
  NORM_FORMS,
  NORM_KINDS,
  NORM_FORM_NAMES,
  isNormKind,
  momentKey,
  normFormOf,
  normOfForm,
} from './norms.js';
export { float32ToHalfBits, halfBitsToFloat32 } from './numerics/half.js';
export { compareOutputs, ulp32, type Comparison } from './numerics/metrics.js';
