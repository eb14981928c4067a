/**
 * Where the element's runtime and inputs come from by default: the package's runtime (init()),
 * the package's loader for `src`, and markup-inputs.ts for what HTML alone gives. Each is imported
 * when first needed, so an element that is never shown (or is given an engine of the host's)
 * loads none of them.
 */
import type { NormCallRuntime } from '../types.js';
import type { ExplainerWeights } from './types.js';

let runtime: Promise<NormCallRuntime> | null = null;

/**
 * The package's runtime with init()'s defaults (its calls and stages: all the element uses), loaded
 * once for every element on the page.
 */
export function defaultRuntime(): Promise<NormCallRuntime> {
  runtime ??= import('../core/norm-init.js').then((m) => m.normRuntime());
  runtime.catch(() => (runtime = null));
  return runtime;
}

/** γ, β, ε and the norm of a checkpoint, read by range requests with the package's loader. */
export async function loadWeights(src: string, signal: AbortSignal): Promise<ExplainerWeights> {
  // The loader alone, not the whole io entry (its .npy writer and text parsers).
  const { loadNormWeights } = await import('../io/weights.js');
  const w = await loadNormWeights(new URL(src, document.baseURI).href, { signal });
  return { gamma: w.gamma, beta: w.beta, eps: w.eps, norm: w.norm, architecture: w.architecture };
}

/**
 * What an element written in HTML alone needs (activations-src, an inline JSON script, why a src
 * failed): loaded only when one of them comes up.
 */
export const markup = () => import('./markup-inputs.js');
