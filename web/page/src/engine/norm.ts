/**
 * Which norm the engine runs and the package calls that run it (the ones its row in NORMS names):
 * the checkpoint's RMSNorm, or LayerNorm with β or without (the bias-free preset). Every
 * computation in the engine (output, checks, lab, timing, benchmark) goes through here, so they
 * all run the same norm.
 */
import {
  NORM_FORMS,
  normOfForm,
  normReference,
  type LayerNorm,
  type LayerNormRuntime,
  type NormForm,
} from 'layernorm-wasm';
import { formToRun } from './form';
import type { LayerParams, NormKind } from './protocol';

export interface Weights {
  id: number;
  gamma: Float32Array;
  beta: Float32Array | null;
  d: number;
  norm: NormKind;
}

export interface Norm {
  form: NormForm;
  gamma: Float32Array;
  /** null for RMSNorm and for LayerNorm without β. */
  beta: Float32Array | null;
  eps: number;
}

/**
 * The norm these weights run with these settings: an RMSNorm checkpoint runs as RMSNorm whatever
 * the LayerNorm preset says; LayerNorm weights without β run bias-free.
 */
export function normFor(w: Weights, p: LayerParams): Norm {
  const form = formToRun(w, p.form);
  return { form, gamma: w.gamma, beta: NORM_FORMS[form].bias ? w.beta : null, eps: p.eps };
}

/** The settings a result was made with (what ran, not what was asked). */
export const paramsOf = (n: Norm): LayerParams => ({ eps: n.eps, form: n.form });

/** γ, β (null for a norm without one, or a form that leaves it out) and ε, as every call takes them. */
type NormOptions = { gamma: Float32Array; beta: Float32Array | null; eps: number; out?: Float32Array };
const options = (n: Norm, out?: Float32Array): NormOptions => ({ gamma: n.gamma, beta: n.beta, eps: n.eps, out });

/** The module's output for rows x (into `out` when given). */
export function normalize(rt: LayerNormRuntime, n: Norm, x: Float32Array, d: number, out?: Float32Array): Float32Array {
  const call = rt[normOfForm(n.form).api.call] as (x: Float32Array, d: number, o: NormOptions) => Float32Array;
  return call.call(rt, x, d, options(n, out));
}

/** The package's reference for rows x: each output the float32 nearest the exact answer. */
export function reference(n: Norm, x: Float32Array, d: number): Float32Array {
  return normReference(NORM_FORMS[n.form].norm, x, d, options(n));
}

/** A resident layer (γ, β kept in wasm memory) for repeated calls; dispose it. */
export function createNorm(rt: LayerNormRuntime, d: number, n: Norm): LayerNorm {
  const create = rt[normOfForm(n.form).api.create] as (d: number, o: NormOptions) => LayerNorm;
  return create.call(rt, d, options(n));
}
