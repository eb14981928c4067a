/**
 * The numbers the explainer shows for one row: its stages under the form its weights run in, and
 * the same row under the three forms (same γ), each computed by the package's runtime. It is
 * `layernorm-wasm/explainer/compute` too, for hosts that compute them elsewhere (a worker holding
 * the data, where no element can be defined) and hand them to the element through its `engine`.
 */
import { DEFAULT_FORM, DEFAULT_NORM, NORM_FORMS, normFormOf, normOfForm, type NormForm } from '../norms.js';
import type { NormCallRuntime } from '../types.js';
import type { ExplainerStages, ExplainerWeights, Explanation } from './types.js';

/** The form these weights run in (LayerNorm with γ = 1 while there are none). */
export function formOf(w: ExplainerWeights | null | undefined): NormForm {
  return w ? normFormOf(w.norm ?? DEFAULT_NORM, !!w.beta) : DEFAULT_FORM;
}

/** The width the activations' last axis has. */
export const widthOf = (shape: readonly number[]): number => shape[shape.length - 1]!;

/**
 * Row `row` of x (rows of width d) explained: `stages` exactly as layerNormStages / rmsNormStages
 * return them for the weights' form, and `variants`. No weights: γ = 1 and no β. ε: the weights'
 * unless given, else 1e-5.
 */
export function explainRow(
  rt: NormCallRuntime,
  x: Float32Array,
  d: number,
  row: number,
  weights: ExplainerWeights | null = null,
  eps: number = weights?.eps ?? 1e-5,
): Explanation {
  const gamma = weights?.gamma;
  const beta = weights?.beta ?? null;
  const form = formOf(weights);
  const withB = NORM_FORMS[form].bias;
  const stages = normOfForm(form).centred
    ? rt.layerNormStages(x, d, row, { gamma, beta: withB ? beta : null, eps })
    : rt.rmsNormStages(x, d, row, { gamma, eps });
  // The same row under the other forms, each computed by the module with the same γ.
  const one = x.subarray(row * d, (row + 1) * d);
  const biasFree = !withB && 'mean' in stages ? stages : rt.layerNormStages(one, d, 0, { gamma, eps });
  const rms = 'meanSquare' in stages ? stages : rt.rmsNormStages(one, d, 0, { gamma, eps });
  const withBeta = beta ? (withB ? stages.output : rt.layerNorm(one, d, { gamma, beta, eps })) : null;
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

/** The first feature of a window of `size` around the row's strongest feature (the first NaN, if any). */
export function strongestWindow(st: ExplainerStages, d: number, size: number): number {
  const spread = 'centered' in st ? st.centered : st.input;
  let best = 0;
  for (let j = 1; j < d; j++) if (Math.abs(spread[j]!) > Math.abs(spread[best]!) || Number.isNaN(spread[j]!)) best = j;
  return Math.max(0, Math.min(d - size, best - (size >> 1) + 1));
}
