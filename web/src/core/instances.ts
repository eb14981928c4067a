/**
 * The instantiated wasm modules, one per backend, shared by every runtime made over them: init()'s
 * Runtime and the explainer element's NormRuntime use one module (and one heap) on a page that
 * has both, whichever comes first.
 */
import { loadModule, type WasmLocations } from '../loader.js';
import type { Backend } from '../types.js';
import type { LayerNormModule } from '../wasm/module.js';
import type { NormRuntime } from './norm-runtime.js';

const modules = new Map<Backend, Promise<LayerNormModule>>();

/** The module of `backend`, instantiated on first use (a failed load is tried again next time). */
export function moduleOf(backend: Backend, locations: WasmLocations): Promise<LayerNormModule> {
  let module = modules.get(backend);
  if (!module) {
    module = loadModule(backend, locations);
    modules.set(backend, module);
    module.catch(() => modules.delete(backend));
  }
  return module;
}

/** Every runtime made so far, by backend: init()'s full Runtime where there is one. */
export const runtimesMade = new Map<Backend, Promise<NormRuntime>>();
