/**
 * A runtime for normalizing rows and reading their stages, with init()'s defaults: init()'s own
 * runtime where the page has made one, else a NormRuntime over the same shared module. What the
 * explainer element computes with when its host gives it none; apart from init.ts so that the
 * element's first load leaves out what only the full runtime does (resident norms, tensors, ONNX
 * LayerNormalization: about 8 KB of a 160 KiB budget).
 */
import { resolveBackend } from '../loader.js';
import type { NormCallRuntime } from '../types.js';
import { moduleOf, runtimesMade } from './instances.js';
import { NormRuntime } from './norm-runtime.js';

export async function normRuntime(): Promise<NormCallRuntime> {
  const backend = await resolveBackend('auto');
  let runtime = runtimesMade.get(backend);
  if (!runtime) {
    const made = moduleOf(backend, {}).then((module) => new NormRuntime(module, backend));
    runtimesMade.set(backend, made);
    made.catch(() => runtimesMade.get(backend) === made && runtimesMade.delete(backend));
    runtime = made;
  }
  return runtime;
}
