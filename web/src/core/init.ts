/**
 * init(): one runtime per backend, loaded once and shared by every later call. Its own module so
 * that code needing only a runtime (the explainer element, the worker script) imports this and
 * not the package's whole entry with its references and metrics.
 */
import { checkWasmOption, loadModule, resolveBackend } from '../loader.js';
import type { Backend, InitOptions, LayerNormRuntime } from '../types.js';
import { checkOptions } from '../checks/validate.js';
import { Runtime } from './runtime.js';

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
