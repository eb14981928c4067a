/**
 * Which norm the engine runs and the package calls that run it (the ones its row in NORMS names):
 * the checkpoint's RMSNorm, or LayerNorm with β or without (the bias-free preset). Every
 * computation in the engine (output, checks, lab, timing, benchmark) goes through here, so they
 * all run the same norm.
 */
import {
  NORM_FORMS,
  normFormOf,
  normOfForm,
  normReference,
  type LayerNorm,
  type LayerNormRuntime,
} from 'layernorm-wasm';
import type { LayerParams, NormKind, Variant } from './protocol';

export interface Weights {
  id: number;
  gamma: Float32Array;
  beta: Float32Array | null;
  d: number;
  norm: NormKind;
}

export interface Norm {
  variant: Variant;
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
  const variant = normFormOf(w.norm, w.beta !== null && NORM_FORMS[p.variant].bias);
  return { variant, gamma: w.gamma, beta: NORM_FORMS[variant].bias ? w.beta : null, eps: p.eps };
}

/** The settings a result was made with (what ran, not what was asked). */
export const paramsOf = (n: Norm): LayerParams => ({ eps: n.eps, variant: n.variant });

/** γ, β (null for a norm without one, or a form that leaves it out) and ε, as every call takes them. */
type NormOptions = { gamma: Float32Array; beta: Float32Array | null; eps: number; out?: Float32Array };
const options = (n: Norm, out?: Float32Array): NormOptions => ({ gamma: n.gamma, beta: n.beta, eps: n.eps, out });

/** The module's output for rows x (into `out` when given). */
export function normalize(rt: LayerNormRuntime, n: Norm, x: Float32Array, d: number, out?: Float32Array): Float32Array {
  const call = rt[normOfForm(n.variant).api.call] as (x: Float32Array, d: number, o: NormOptions) => Float32Array;
  return call.call(rt, x, d, options(n, out));
}

/** The package's reference for rows x: each output the float32 nearest the exact answer. */
export function reference(n: Norm, x: Float32Array, d: number): Float32Array {
  return normReference(NORM_FORMS[n.variant].norm, x, d, options(n));
}

/** A resident layer (γ, β kept in wasm memory) for repeated calls; dispose it. */
export function createNorm(rt: LayerNormRuntime, d: number, n: Norm): LayerNorm {
  const create = rt[normOfForm(n.variant).api.create] as (d: number, o: NormOptions) => LayerNorm;
  return create.call(rt, d, options(n));
}
