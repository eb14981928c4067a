/**
 * The arrays activations come in: float32 as a Float32Array; float16 as a Float16Array where the
 * engine has one, or its bits in a Uint16Array with `dtype: 'float16'`; bfloat16 as its bits in a
 * Uint16Array with `dtype: 'bfloat16'`. Every other activation array of a call (out, residual,
 * sumOut) is of the same kind as x; gamma, beta and bias are always Float32Array.
 */
import { RULES, oneOf } from './rules.js';
import type { ActivationArray, DType } from '../types.js';
import { checkLiveView } from './validate.js';

/** The engine's Float16Array constructor, where it has one (Chromium 135+; Node behind a flag). */
const Float16 = (globalThis as { Float16Array?: new (length: number) => ActivationArray }).Float16Array;

export const DTYPE_CODES: Record<DType, number> = { float32: 0, float16: 1, bfloat16: 2 };
const DTYPES = Object.keys(DTYPE_CODES) as DType[];

/** One kind of activation array: its element type, and how to make and copy such arrays. */
export interface ActivationKind {
  readonly dtype: DType;
  readonly bytes: 2 | 4;
  /** The constructor the call's activation arrays share. */
  readonly name: 'Float32Array' | 'Uint16Array' | 'Float16Array';
  /** A new zeroed array of this kind. */
  make(length: number): ActivationArray;
  /** The array's storage as the heap copies it: the floats themselves, or the 16-bit patterns. */
  units(a: ActivationArray): Float32Array | Uint16Array;
}

export const FLOAT32: ActivationKind = {
  dtype: 'float32',
  bytes: 4,
  name: 'Float32Array',
  make: (n) => new Float32Array(n),
  units: (a) => a as Float32Array,
};

const bits = (a: ActivationArray): Uint16Array =>
  a instanceof Uint16Array ? a : new Uint16Array(a.buffer, a.byteOffset, a.length);

const UINT16: Record<'float16' | 'bfloat16', ActivationKind> = {
  float16: { dtype: 'float16', bytes: 2, name: 'Uint16Array', make: (n) => new Uint16Array(n), units: bits },
  bfloat16: { dtype: 'bfloat16', bytes: 2, name: 'Uint16Array', make: (n) => new Uint16Array(n), units: bits },
};

const NATIVE16: ActivationKind | null = Float16
  ? { dtype: 'float16', bytes: 2, name: 'Float16Array', make: (n) => new Float16(n), units: bits }
  : null;

export const isFloat16Array = (value: unknown): boolean => Float16 !== undefined && value instanceof Float16;

/** The dtype option, checked (undefined when absent). */
export function checkDType(fn: string, dtype: unknown): DType | undefined {
  if (dtype === undefined) return undefined;
  if (dtype !== 'float32' && dtype !== 'float16' && dtype !== 'bfloat16') {
    throw new TypeError(RULES.mustBe(fn, 'dtype', oneOf(DTYPES), dtype));
  }
  return dtype;
}

/**
 * The kind of `x` given the call's dtype option. A TypeError when x is no activation array, when
 * it and the dtype do not go together, or when a Uint16Array comes without saying what it holds.
 */
export function kindOf(fn: string, name: string, x: unknown, dtype: DType | undefined): ActivationKind {
  if (x instanceof Float32Array) {
    checkLiveView(fn, name, x, 'Float32Array');
    if (dtype !== undefined && dtype !== 'float32') {
      const wanted = dtype === 'float16' ? 'a Float16Array or a Uint16Array of its bits' : 'a Uint16Array of its bits';
      throw new TypeError(`${fn}: dtype '${dtype}' needs ${name} as ${wanted}, got a Float32Array`);
    }
    return FLOAT32;
  }
  if (x instanceof Uint16Array) {
    checkLiveView(fn, name, x, 'Uint16Array');
    if (dtype !== 'float16' && dtype !== 'bfloat16') {
      throw new TypeError(
        `${fn}: ${name} is a Uint16Array: say which 16-bit type its bits are with dtype: 'float16' or 'bfloat16'` +
          (dtype ? `, got dtype '${dtype}'` : ''),
      );
    }
    return UINT16[dtype];
  }
  if (NATIVE16 && isFloat16Array(x)) {
    checkLiveView(fn, name, x as ActivationArray, 'Float16Array');
    if (dtype !== undefined && dtype !== 'float16') {
      throw new TypeError(`${fn}: ${name} is a Float16Array, whose values are float16, got dtype '${dtype}'`);
    }
    return NATIVE16;
  }
  throw new TypeError(
    RULES.mustBe(fn, name, "a Float32Array, a Float16Array, or a Uint16Array with dtype 'float16' or 'bfloat16'", x),
  );
}

/** The kind a resident object or tensor of this dtype takes (Uint16Array for the 16-bit types). */
export function kindForDType(dtype: DType): ActivationKind {
  return dtype === 'float32' ? FLOAT32 : UINT16[dtype];
}

/** Whether `value` is an array of the same constructor as the kind's. */
function isOfKind(value: unknown, kind: ActivationKind): boolean {
  if (kind.name === 'Float32Array') return value instanceof Float32Array;
  if (kind.name === 'Uint16Array') return value instanceof Uint16Array;
  return isFloat16Array(value);
}

/** An activation array that must be of x's kind and length (out, residual, sumOut). */
export function checkSameKind(
  fn: string,
  name: string,
  value: unknown,
  kind: ActivationKind,
  length: number,
): ActivationArray {
  if (!isOfKind(value, kind)) {
    const like = kind.dtype === 'float32' ? '' : ` like x (${kind.dtype})`;
    throw new TypeError(RULES.mustBe(fn, name, `a ${kind.name}${like}`, value));
  }
  const a = checkLiveView(fn, name, value as ActivationArray, kind.name);
  if (a.length !== length) {
    throw new RangeError(RULES.lengthAs(fn, name, length, 'the same as x', a.length));
  }
  return a;
}
