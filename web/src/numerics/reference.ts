/**
 * The references in plain JavaScript: each output the float32 nearest to the exact real answer
 * for the given float32 inputs (correctly-rounded.ts), what the kernels' outputs are measured
 * against. Float16 / bfloat16 inputs are widened exactly; the result is float32 whatever the input
 * type (round it with float32ToHalfBits to compare with a 16-bit output). With a residual,
 * h = (x + r) + bias is formed as the kernels form it: in float32, rounded once to the activations'
 * type; the answer is then exact for that h.
 */
import type { ActivationKind } from '../checks/activations.js';
import { checkNormCall, type NormKind } from '../checks/call.js';
import { normalizeRows } from './correctly-rounded.js';
import { describe } from '../errors.js';
import { float32ToHalfBits, halfBitsToFloat32 } from './half.js';
import { isNormKind, NORM_KINDS, NORMS } from '../norms.js';
import { oneOf, RULES } from '../checks/rules.js';
import type { ActivationArray, LayerNormOptions, NormOptions, ResidualOptions, RmsNormOptions } from '../types.js';

/** The references return a new Float32Array: the kernels' output options have nothing to fill here. */
type ReferenceOptions = Omit<ResidualOptions<ActivationArray>, 'sumOut'>;
const OUTPUTS = ['out', 'sumOut', 'mean', 'rstd'] as const;

function widen(kind: ActivationKind, a: ActivationArray): Float32Array {
  const units = kind.units(a);
  return kind.dtype === 'float32' ? (units as Float32Array) : halfBitsToFloat32(units as Uint16Array, kind.dtype);
}

/** (x + r) + bias in float32, as the activations' type holds it. */
function residualSum(
  kind: ActivationKind,
  x: Float32Array,
  r: Float32Array,
  bias: Float32Array | null,
  d: number,
): Float32Array {
  const h = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) h[i] = bias ? Math.fround(x[i]! + r[i]!) + bias[i % d]! : x[i]! + r[i]!;
  return kind.dtype === 'float32' ? h : halfBitsToFloat32(float32ToHalfBits(h, kind.dtype), kind.dtype);
}

function reference(fn: string, norm: NormKind, x: ActivationArray, d: number, options: unknown): Float32Array {
  if (options !== null && typeof options === 'object') {
    for (const name of OUTPUTS) {
      const v = (options as Record<string, unknown>)[name];
      if (v !== undefined && v !== null)
        throw new TypeError(
          `${fn}: the reference returns a new Float32Array and fills no ${name}; got ${name} ${describe(v)}`,
        );
    }
  }
  const c = checkNormCall(fn, norm, x, d, options);
  const input = widen(c.kind, c.x);
  const h = c.residual ? residualSum(c.kind, input, widen(c.kind, c.residual), c.bias, d) : input;
  return normalizeRows(h, { norm, d, eps: c.eps, gamma: c.gamma, beta: c.beta });
}

/**
 * The reference of any norm in the table (norms.ts): each output the float32 nearest the exact
 * answer. Its messages name it as its row does (`api.reference`, e.g. rmsNormReference).
 */
export function normReference<K extends NormKind>(
  norm: K,
  x: ActivationArray,
  d: number,
  options?: NormOptions<K> & ReferenceOptions,
): Float32Array {
  if (!isNormKind(norm)) throw new TypeError(RULES.mustBe('normReference', 'norm', oneOf(NORM_KINDS), norm));
  return reference(NORMS[norm].api.reference, norm, x, d, options);
}

/**
 * LayerNorm y = γ ⊙ (h − μ) / √(σ² + ε) + β (h = x, or (x + residual) + bias), each output the
 * float32 nearest the exact answer; a constant row gives β, also with ε = 0; a row holding NaN or
 * ±Infinity gives NaN.
 */
export function layerNormReference(
  x: ActivationArray,
  d: number,
  options?: LayerNormOptions & ReferenceOptions,
): Float32Array {
  return normReference('layernorm', x, d, options);
}

/**
 * RMSNorm y = γ ⊙ h / √(mean(h²) + ε) (h = x, or (x + residual) + bias), each output the float32
 * nearest the exact answer; a row of zeros gives zeros, also with ε = 0.
 */
export function rmsNormReference(
  x: ActivationArray,
  d: number,
  options?: RmsNormOptions & ReferenceOptions,
): Float32Array {
  return normReference('rmsnorm', x, d, options);
}
