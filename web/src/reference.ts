/**
 * The float64 oracles in plain JavaScript: the textbook two-pass formulas in double precision on
 * the widened inputs, rounded to float32 once. Deliberately simple; they are what the wasm kernels
 * are checked against. Float16 / bfloat16 inputs are widened exactly; the result is float32
 * whatever the input type (round it with float32ToHalfBits to compare with a 16-bit output).
 * With a residual, h = (x + r) + bias is formed as the kernels form it: in float32, rounded once to
 * the activations' type.
 */
import type { Kind } from './activations.js';
import { checkNormCall, type NormKind } from './call.js';
import { describe } from './errors.js';
import { float32ToHalfBits, halfBitsToFloat32 } from './half.js';
import type { ActivationArray, LayerNormOptions, ResidualOptions, RmsNormOptions } from './types.js';

/** The references return a new Float32Array: the kernels' output options have nothing to fill here. */
type ReferenceOptions = Omit<ResidualOptions<ActivationArray>, 'sumOut'>;
const OUTPUTS = ['out', 'sumOut', 'mean', 'rstd'] as const;

function widen(kind: Kind, a: ActivationArray): Float32Array {
  const units = kind.units(a);
  return kind.dtype === 'float32' ? (units as Float32Array) : halfBitsToFloat32(units as Uint16Array, kind.dtype);
}

/** (x + r) + bias in float32, as the activations' type holds it. */
function residualSum(kind: Kind, x: Float32Array, r: Float32Array, bias: Float32Array | null, d: number): Float32Array {
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
  const y = new Float32Array(h.length);
  for (let r = 0; r < c.rows; r++) {
    const base = r * d;
    let mean = 0;
    if (norm === 'layernorm') {
      let sum = 0;
      for (let j = 0; j < d; j++) sum += h[base + j]!;
      mean = sum / d;
    }
    let squares = 0;
    for (let j = 0; j < d; j++) {
      const centered = h[base + j]! - mean;
      squares += centered * centered;
    }
    const denom = Math.sqrt(squares / d + c.eps);
    const finite = Number.isFinite(mean) && Number.isFinite(squares);
    for (let j = 0; j < d; j++) {
      const centered = h[base + j]! - mean;
      // Where every centered value is 0 (a constant row; RMSNorm's zero row) define 0/0 as 0, so
      // the output is beta.
      let v = finite ? (centered === 0 ? 0 : centered / denom) : NaN;
      if (c.gamma) v *= c.gamma[j]!;
      if (c.beta) v += c.beta[j]!;
      y[base + j] = v;
    }
  }
  return y;
}

/** LayerNorm in float64: y = γ ⊙ (h − μ) / √(σ² + ε) + β, h = x or (x + residual) + bias. */
export function layerNormReference(
  x: ActivationArray,
  d: number,
  options?: LayerNormOptions & ReferenceOptions,
): Float32Array {
  return reference('layerNormReference', 'layernorm', x, d, options);
}

/** RMSNorm in float64: y = γ ⊙ h / √(mean(h²) + ε), h = x or (x + residual) + bias. */
export function rmsNormReference(
  x: ActivationArray,
  d: number,
  options?: RmsNormOptions & ReferenceOptions,
): Float32Array {
  return reference('rmsNormReference', 'rmsnorm', x, d, options);
}
