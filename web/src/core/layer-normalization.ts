/**
 * ONNX LayerNormalization (opset 17) for ports of ONNX graphs: x of any shape is normalized over
 * its dimensions from `axis` on, Scale and B are broadcast over those dimensions as ONNX broadcasts
 * them (unidirectionally, aligned to the last dimension), and Mean / InvStdDev come with ONNX's
 * shapes. It is one layerNorm call with d = the product of the normalized dimensions.
 */
import { kindOf } from '../checks/activations.js';
import { checkNormCall, dtypeOption } from '../checks/call.js';
import type { RuntimeCore } from './runtime-core.js';
import type { ActivationArray, LayerNormalizationOptions, LayerNormalizationResult } from '../types.js';
import { MAX_WIDTH, checkEps, checkFloat32Array, checkOptions, numberError } from '../checks/validate.js';
import { RULES } from '../checks/rules.js';

const FN = 'layerNormalization';
/**
 * The number of values of a shape. A shape with a dimension 0 holds none, whatever the others: a
 * plain product of [1e200, 1e200, 0] is Infinity × 0 = NaN. Otherwise a product past 2^53 is not
 * exact, but it is then larger than any array, so it is never taken for an array's length.
 */
const product = (dims: readonly number[]) => (dims.includes(0) ? 0 : dims.reduce((a, b) => a * b, 1));
/** A count as a message states it: past 2^53, where a double no longer counts exactly, only that. */
const count = (n: number) => (Number.isSafeInteger(n) ? String(n) : 'more than 2^53');

function checkShape(shape: unknown, length: number): number[] {
  if (!Array.isArray(shape)) throw new TypeError(RULES.mustBe(FN, 'shape', 'an array of dimensions', shape));
  if (shape.length === 0) throw new RangeError(`${FN}: shape must have at least one dimension, got []`);
  const dims = dimensions('shape', shape);
  if (product(dims) !== length) {
    throw new RangeError(
      RULES.lengthAs(FN, 'x', count(product(dims)), `the values of shape [${dims.join(', ')}]`, length),
    );
  }
  return dims;
}

/** An array's dimensions, each an integer >= 0 (a hole in a sparse array is undefined, refused). */
function dimensions(name: string, shape: unknown[]): number[] {
  const dims: number[] = [];
  for (let i = 0; i < shape.length; i++) {
    const n = shape[i];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
      throw numberError(FN, `${name}[${i}]`, 'an integer >= 0', n);
    dims.push(n);
  }
  return dims;
}

/**
 * A Scale or B tensor expanded to the normalized shape: each of its dimensions, aligned to the
 * last, must equal the normalized one or be 1 (ONNX's unidirectional broadcasting).
 */
function broadcast(name: string, value: unknown, dims: number[]): Float32Array | null {
  if (value === undefined || value === null) return null;
  let data: Float32Array;
  let shape: number[];
  const size = product(dims);
  if (value instanceof Float32Array) {
    data = checkFloat32Array(FN, name, value);
    // A bare array of the normalized size is the normalized shape; otherwise a 1-D tensor.
    shape = data.length === size ? dims : [data.length];
  } else if (value !== null && typeof value === 'object' && 'data' in value) {
    const t = value as { data: unknown; shape: unknown };
    data = checkFloat32Array(FN, `${name}.data`, t.data);
    if (!Array.isArray(t.shape)) throw new TypeError(RULES.mustBe(FN, `${name}.shape`, 'an array', t.shape));
    shape = dimensions(`${name}.shape`, t.shape);
    if (product(shape) !== data.length) {
      const why = `the values of ${name}.shape [${shape.join(', ')}]`;
      throw new RangeError(RULES.lengthAs(FN, `${name}.data`, count(product(shape)), why, data.length));
    }
  } else {
    throw new TypeError(RULES.mustBe(FN, name, 'a Float32Array or { data: Float32Array, shape }', value));
  }
  const given = shape;
  // ONNX broadcasts Scale and B to x itself, so they may have x's rank: the dimensions before the
  // normalized ones are then 1s.
  while (shape.length > dims.length && shape[0] === 1) shape = shape.slice(1);
  const fits =
    shape.length <= dims.length && shape.every((n, i) => n === 1 || n === dims[dims.length - shape.length + i]);
  if (!fits) {
    throw new RangeError(
      `${FN}: ${name} of shape [${given.join(', ')}] does not broadcast to the normalized dimensions [${dims.join(', ')}]`,
    );
  }
  if (data.length === size) return data;
  // Expand: the index of each normalized element in the (right-aligned) smaller tensor.
  const full = new Float32Array(size);
  const padded = [...new Array<number>(dims.length - shape.length).fill(1), ...shape];
  const strides = padded.map((_, i) => product(padded.slice(i + 1)));
  for (let flat = 0; flat < size; flat++) {
    let rest = flat,
      src = 0;
    for (let i = dims.length - 1; i >= 0; i--) {
      const coord = rest % dims[i];
      rest = Math.floor(rest / dims[i]);
      if (padded[i] !== 1) src += coord * strides[i];
    }
    full[flat] = data[src];
  }
  return full;
}

export function layerNormalization<A extends ActivationArray>(
  runtime: RuntimeCore,
  x: A,
  shape: readonly number[],
  options?: LayerNormalizationOptions,
): LayerNormalizationResult<A> {
  const dtype = dtypeOption(FN, options);
  kindOf(FN, 'x', x, dtype);
  const dims = checkShape(shape, x.length);
  const o = checkOptions(FN, options);
  const rank = dims.length;
  const axis = o.axis === undefined ? -1 : o.axis;
  if (typeof axis !== 'number' || !Number.isInteger(axis) || axis < -rank || axis >= rank) {
    throw numberError(FN, 'axis', `an integer in [${-rank}, ${rank}) for a rank-${rank} x`, axis);
  }
  const first = axis < 0 ? axis + rank : axis;
  const normalized = dims.slice(first);
  const d = product(normalized);
  if (d === 0) {
    throw new RangeError(
      `${FN}: the normalized dimensions [${normalized.join(', ')}] (axis ${axis}) hold no values to normalize`,
    );
  }
  if (d > MAX_WIDTH) {
    throw new RangeError(
      `${FN}: the normalized dimensions [${normalized.join(', ')}] (axis ${axis}) hold ${count(d)} values, more than a row may have (${MAX_WIDTH}: one row must fit in wasm memory)`,
    );
  }
  const rows = product(dims.slice(0, first));
  const statsShape = [...dims.slice(0, first), ...normalized.map(() => 1)];
  const eps = checkEps(FN, o.epsilon, 'epsilon');
  const gamma = broadcast('gamma', o.gamma, normalized);
  const beta = broadcast('beta', o.beta, normalized);
  const mean = new Float64Array(rows),
    invStdDev = new Float64Array(rows);
  // Checked and run as this function, so that any error (wasm memory, for one) names it.
  const call = checkNormCall(FN, 'layernorm', x, d, { gamma, beta, eps, dtype, mean, rstd: invStdDev });
  const y = runtime.normalize(call, null) as A;
  return { y, mean, invStdDev, shape: dims, statsShape };
}
