/**
 * The float64 oracle in plain JavaScript: the textbook two-pass formula in double precision,
 * rounded to float32 once. Deliberately simple; it is what the wasm kernels are checked against.
 */
import type { LayerNormOptions } from './types.js';
import { checkCall } from './validate.js';

export function layerNormReference(x: Float32Array, d: number, options?: LayerNormOptions): Float32Array {
  const { rows, gamma, beta, eps } = checkCall('layerNormReference', x, d, options);
  const y = new Float32Array(x.length);
  for (let r = 0; r < rows; r++) {
    const base = r * d;
    let sum = 0;
    for (let j = 0; j < d; j++) sum += x[base + j];
    const mean = sum / d;
    let squares = 0;
    for (let j = 0; j < d; j++) {
      const c = x[base + j] - mean;
      squares += c * c;
    }
    const denom = Math.sqrt(squares / d + eps);
    for (let j = 0; j < d; j++) {
      const c = x[base + j] - mean;
      // A constant row has x - mean === 0 exactly: define 0/0 as 0 so it yields beta.
      let v = Number.isFinite(mean) ? (c === 0 ? 0 : c / denom) : NaN;
      if (gamma) v *= gamma[j];
      if (beta) v += beta[j];
      y[base + j] = v;
    }
  }
  return y;
}
