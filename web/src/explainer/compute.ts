/**
 * The element's own engine: one row's stages and the same row under the three forms, from the
 * package's runtime on this thread. The runtime and the loader are imported when first needed, so
 * an element that is never shown (or is given an engine of the host's) loads neither.
 */
import { normFormOf, type NormForm } from '../norms.js';
import type { LayerNormRuntime } from '../types.js';
import type { ExplainerActivations, ExplainerWeights, Explanation, ExplainRequest } from './types.js';

/** The form these weights run in (LayerNorm with γ = 1 while there are none). */
export function formOf(w: ExplainerWeights | null): NormForm {
  return w ? normFormOf(w.norm ?? 'layernorm', !!w.beta) : 'layernorm';
}

/** The width the activations' last axis has. */
export const widthOf = (shape: readonly number[]): number => shape[shape.length - 1]!;

export function explainRow(rt: LayerNormRuntime, a: ExplainerActivations, req: ExplainRequest): Explanation {
  const d = widthOf(a.shape);
  const { row, weights: w, eps } = req;
  const gamma = w?.gamma;
  const beta = w?.beta ?? null;
  const form = formOf(w);
  const stages =
    form === 'rmsnorm'
      ? rt.rmsNormStages(a.data, d, row, { gamma, eps })
      : rt.layerNormStages(a.data, d, row, { gamma, beta: form === 'layernorm' ? beta : null, eps });
  // The same row under the other forms, each computed by the module with the same γ.
  const x = a.data.subarray(row * d, (row + 1) * d);
  const biasFree = form === 'biasfree' && 'mean' in stages ? stages : rt.layerNormStages(x, d, 0, { gamma, eps });
  const rms = 'meanSquare' in stages ? stages : rt.rmsNormStages(x, d, 0, { gamma, eps });
  const withBeta = beta ? (form === 'layernorm' ? stages.output : rt.layerNorm(x, d, { gamma, beta, eps })) : null;
  return {
    stages,
    variants: {
      mean: biasFree.mean,
      variance: biasFree.variance,
      rms: Math.sqrt(rms.meanSquare + eps),
      layernorm: withBeta,
      biasfree: biasFree.output,
      rmsnorm: rms.output,
    },
  };
}

let runtime: Promise<LayerNormRuntime> | null = null;

/** The package's runtime (init() with its defaults), loaded once for every element on the page. */
export function defaultRuntime(): Promise<LayerNormRuntime> {
  runtime ??= import('../index.js').then((m) => m.init());
  runtime.catch(() => (runtime = null));
  return runtime;
}

/** γ, β, ε and the norm of a checkpoint, read by range requests with the package's loader. */
export async function loadWeights(src: string, signal: AbortSignal): Promise<ExplainerWeights> {
  // The loader alone, not the whole io entry (its .npy writer and text parsers).
  const { loadNormWeights } = await import('../io/weights.js');
  // fetch called as a plain function: the loader keeps it as a method, and a browser's fetch
  // refuses to run with another `this` ("Illegal invocation").
  const w = await loadNormWeights(new URL(src, document.baseURI).href, {
    signal,
    fetch: (input, init) => fetch(input, init),
  });
  return { gamma: w.gamma, beta: w.beta, eps: w.eps, norm: w.norm, architecture: w.architecture };
}
