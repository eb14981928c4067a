/**
 * The numbers the explainer shows for one row: its stages under the form its weights run in, and
 * the same row under every form (same γ), each computed by the package's runtime through the
 * methods the forms' rows name. It is `layernorm-wasm/explainer/compute` too, for hosts that
 * compute them elsewhere (a worker holding the data, where no element can be defined) and hand them
 * to the element through its `engine`.
 */
import {
  DEFAULT_FORM,
  DEFAULT_NORM,
  NORM_FORM_NAMES,
  NORM_FORMS,
  NORM_KINDS,
  NORMS,
  momentKey,
  normFormOf,
  normOfForm,
  type NormFacts,
  type NormForm,
} from '../norms.js';
import type { NormCallRuntime } from '../types.js';
import type { ExplainerStages, ExplainerVariants, ExplainerWeights, Explanation } from './types.js';

type Stages = (x: Float32Array, d: number, row: number, options: object) => ExplainerStages;
type Call = (x: Float32Array, d: number, options: object) => Float32Array;
/** The runtime's method of that name (installed from the norms' rows, runtime.ts). */
const method = <F>(rt: NormCallRuntime, name: string): F =>
  (rt as unknown as Record<string, (...args: never[]) => unknown>)[name]!.bind(rt) as F;

/** The norm with these facts (the row's statistics are those of the norms over d). */
const normWith = (centred: boolean): (typeof NORMS)[keyof typeof NORMS] =>
  NORMS[NORM_KINDS.find((k) => NORMS[k].centred === centred && (NORMS[k] as NormFacts).divisor === 'width')!];

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
  // Each form's options: β only where the form applies one.
  const options = (f: NormForm) => (NORM_FORMS[f].bias ? { gamma, beta, eps } : { gamma, eps });
  const stages = method<Stages>(rt, normOfForm(form).api.stages)(x, d, row, options(form));
  // The same row under the other forms, each computed by the module with the same γ; a form with
  // β has nothing to show without one.
  const one = x.subarray(row * d, (row + 1) * d);
  const outputs = Object.fromEntries(
    NORM_FORM_NAMES.map((f) => [
      f,
      f === form
        ? stages.output
        : NORM_FORMS[f].bias && !beta
          ? null
          : method<Call>(rt, normOfForm(f).api.call)(one, d, options(f)),
    ]),
  );
  // The row's own statistics, as the norms over d define them: the mean and variance of the
  // centred one, the mean square of the other (from the stages shown where they are that norm's).
  const statsOf = (centred: boolean) => {
    const spec = normWith(centred);
    const st = normOfForm(form) === spec ? stages : method<Stages>(rt, spec.api.stages)(one, d, 0, { gamma, eps });
    return { st: st as unknown as Record<string, number>, moment: momentKey(spec) };
  };
  const centred = statsOf(true),
    uncentred = statsOf(false);
  return {
    stages,
    variants: {
      mean: centred.st.mean!,
      variance: centred.st[centred.moment]!,
      rms: Math.sqrt(uncentred.st[uncentred.moment]! + eps),
      ...outputs,
    } as ExplainerVariants,
  };
}

/** The first feature of a window of `size` around the row's strongest feature (the first NaN, if any). */
export function strongestWindow(st: ExplainerStages, d: number, size: number): number {
  const spread = 'centered' in st ? st.centered : st.input;
  let best = 0;
  for (let j = 1; j < d; j++) if (Math.abs(spread[j]!) > Math.abs(spread[best]!) || Number.isNaN(spread[j]!)) best = j;
  return Math.max(0, Math.min(d - size, best - (size >> 1) + 1));
}
