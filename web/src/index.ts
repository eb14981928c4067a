/**
 * layernorm-wasm: LayerNorm over the last dimension, y = γ ⊙ (x − μ) / √(σ² + ε) + β,
 * computed by C++ kernels compiled to WebAssembly (SIMD128 where available).
 *
 *   const rt = await init();
 *   const y = rt.layerNorm(x, 768, { gamma, beta, eps: 1e-5 });
 *
 * Reading weights and activations (safetensors, GGUF, .npy, JSON, text) is `layernorm-wasm/io`.
 */
import { checkWasmOption, loadModule, resolveBackend } from './loader.js';
import { Runtime } from './runtime.js';
import type { Backend, InitOptions, LayerNormRuntime } from './types.js';
import { checkOptions } from './validate.js';

export type * from './types.js';
export { DisposedError, UnsupportedError, WasmLoadError } from './errors.js';
export { layerNormReference, normReference, rmsNormReference } from './reference.js';
export {
  DEFAULT_FORM,
  DEFAULT_NORM,
  NORMS,
  NORM_FORMS,
  NORM_KINDS,
  NORM_FORM_NAMES,
  isNormKind,
  normFormOf,
  normOfForm,
} from './norms.js';
export { float32ToHalfBits, halfBitsToFloat32 } from './half.js';
export { compareOutputs, ulp32, type Comparison } from './metrics.js';
export { explainRow } from './explainer/compute.js';
export type { ExplainerWeights, ExplainerVariants, Explanation } from './explainer/types.js';

const runtimes = new Map<Backend, Promise<LayerNormRuntime>>();

/**
 * Loads the wasm module (once per backend; later calls share it) and returns the runtime.
 * backend: 'auto' (default) picks SIMD128 where supported, else scalar.
 * wasm: where the .wasm files are, when the package cannot find them itself (see InitOptions).
 */
export async function init(options?: InitOptions): Promise<LayerNormRuntime> {
  const o = checkOptions('init', options);
  const locations = checkWasmOption(o.wasm);
  const backend = await resolveBackend(o.backend);
  let runtime = runtimes.get(backend);
  if (!runtime) {
    runtime = loadModule(backend, locations).then((module) => new Runtime(module, backend));
    runtimes.set(backend, runtime);
    runtime.catch(() => runtimes.delete(backend));
  }
  return runtime;
}
