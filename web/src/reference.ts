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
import { float32BitsToBfloat16Bits, float32BitsToFloat16Bits, halfBitsToFloat32 } from './half.js';
import type { ActivationArray, LayerNormOptions, ResidualOptions, RmsNormOptions } from './types.js';

function widen(kind: Kind, a: ActivationArray): Float32Array {
  const units = kind.units(a);
  return kind.dtype === 'float32' ? (units as Float32Array) : halfBitsToFloat32(units as Uint16Array, kind.dtype);
}

/** (x + r) + bias in float32, as the activations' type holds it. */
function residualSum(kind: Kind, x: Float32Array, r: Float32Array, bias: Float32Array | null, d: number): Float32Array {
  const h = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) h[i] = bias ? Math.fround(x[i]! + r[i]!) + bias[i % d]! : x[i]! + r[i]!;
  if (kind.dtype === 'float32') return h;
  const bits = new Uint32Array(h.buffer);
  const narrow = kind.dtype === 'bfloat16' ? float32BitsToBfloat16Bits : float32BitsToFloat16Bits;
  const units = Uint16Array.from(bits, narrow);
  return halfBitsToFloat32(units, kind.dtype);
}

function reference(fn: string, norm: NormKind, x: ActivationArray, d: number, options: unknown): Float32Array {
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
      const c = h[base + j]! - mean;
      squares += c * c;
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
  options?: LayerNormOptions & ResidualOptions<ActivationArray>,
): Float32Array {
  return reference('layerNormReference', 'layernorm', x, d, options);
}

/** RMSNorm in float64: y = γ ⊙ h / √(mean(h²) + ε), h = x or (x + residual) + bias. */
export function rmsNormReference(
  x: ActivationArray,
  d: number,
  options?: RmsNormOptions & ResidualOptions<ActivationArray>,
): Float32Array {
  return reference('rmsNormReference', 'rmsnorm', x, d, options);
}
