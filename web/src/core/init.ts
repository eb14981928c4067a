/**
 * init(): one runtime per backend, made once and shared by every later call. Its own module so
 * that the package's entry re-exports it without anything else here, and the worker script takes
 * it alone.
 */
import { checkWasmOption, resolveBackend } from '../loader.js';
import type { Backend, InitOptions, LayerNormRuntime } from '../types.js';
import { checkOptions } from '../checks/validate.js';
import { moduleOf, runtimesMade } from './instances.js';
import { Runtime } from './runtime.js';

const runtimes = new Map<Backend, Promise<Runtime>>();

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
    runtime = moduleOf(backend, locations).then((module) => new Runtime(module, backend));
    runtimes.set(backend, runtime);
    runtimesMade.set(backend, runtime);
    runtime.catch(() => {
      runtimes.delete(backend);
      if (runtimesMade.get(backend) === runtime) runtimesMade.delete(backend);
    });
  }
  return runtime;
}
