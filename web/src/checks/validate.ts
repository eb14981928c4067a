/**
 * Argument checks shared by every entry point: each failure says what was expected and what came.
 * A value of the wrong type is a TypeError, a value of the right type but the wrong size or value a
 * RangeError (so `d = '3'` is a TypeError and `d = 2.5` a RangeError, with the same message).
 */
import { RULES } from './rules.js';

/** Largest width accepted: one row must fit in wasm32 memory (2 GiB) with room to spare. */
export const MAX_WIDTH = 2 ** 28;

export function checkFloat32Array(fn: string, name: string, value: unknown): Float32Array {
  if (!(value instanceof Float32Array)) {
    throw new TypeError(RULES.mustBe(fn, name, 'a Float32Array', value));
  }
  return checkLiveView(fn, name, value, 'Float32Array');
}

/**
 * A value that passed `instanceof` for a typed array constructor (named `type`) and is really a
 * live typed array: instanceof only looks at the prototype chain, so a Proxy of a typed array or an
 * object made with Object.create(Float32Array.prototype) passes it, then fails on the first
 * element access; and a view of a detached buffer has length 0.
 */
export function checkLiveView<T extends ArrayBufferView & { length: number }>(
  fn: string,
  name: string,
  value: T,
  type: string,
): T {
  if (!ArrayBuffer.isView(value)) {
    throw new TypeError(
      `${fn}: ${name} must be a ${type}, got an object that only inherits from ${type}.prototype (a Proxy or Object.create result, not a typed array)`,
    );
  }
  if (value.length === 0 && isDetached(value.buffer)) {
    throw new TypeError(`${fn}: ${name} ${DETACHED.replace('Float32Array', type)}`);
  }
  return value;
}

/**
 * What WasmTensor.set copies in: a typed array (not of bigints) or an array (or array-like) whose
 * elements are all numbers. Elements are checked only once the length is known to fit.
 */
export function checkNumbers(fn: string, name: string, value: unknown): ArrayLike<number> {
  const expected = 'an array or typed array of numbers';
  if (ArrayBuffer.isView(value)) {
    if (value instanceof BigInt64Array || value instanceof BigUint64Array || value instanceof DataView) {
      throw new TypeError(RULES.mustBe(fn, name, expected, value));
    }
    const typed = value as Float32Array;
    if (typed.length === 0 && isDetached(typed.buffer)) throw new TypeError(`${fn}: ${name} ${DETACHED}`);
    return typed;
  }
  if (value instanceof TypedArray) {
    throw new TypeError(
      `${fn}: ${name} must be ${expected}, got an object that only inherits from a typed array prototype (a Proxy or Object.create result, not a typed array)`,
    );
  }
  const length = value !== null && typeof value === 'object' ? (value as { length?: unknown }).length : undefined;
  if (typeof length !== 'number' || !Number.isInteger(length) || length < 0) {
    throw new TypeError(RULES.mustBe(fn, name, expected, value));
  }
  return value as ArrayLike<number>;
}

/** Every element of an array-like is a number (typed arrays of numbers need no check). */
export function checkElements(fn: string, name: string, values: ArrayLike<number>): void {
  if (ArrayBuffer.isView(values)) return;
  for (let i = 0; i < values.length; i++) {
    const v: unknown = values[i];
    if (typeof v !== 'number') throw new TypeError(RULES.mustBe(fn, `${name}[${i}]`, 'a number', v));
  }
}

/** %TypedArray%, the common superclass of every typed array constructor. */
const TypedArray = Object.getPrototypeOf(Int8Array) as typeof Int8Array;

const DETACHED =
  'is a view of a detached ArrayBuffer (it was transferred, or it is a wasm memory view taken before memory grew); pass a live Float32Array';

/** Only a zero-length view can sit on a detached buffer; constructing a view on one throws. */
export function isDetached(buffer: ArrayBufferLike): boolean {
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * The error for a bad number argument: a TypeError when it is not a number at all, a RangeError
 * when it is a number out of bounds.
 */
export function numberError(fn: string, name: string, expected: string, value: unknown): TypeError | RangeError {
  const message = RULES.mustBe(fn, name, expected, value);
  return typeof value === 'number' ? new RangeError(message) : new TypeError(message);
}

export function checkWidth(fn: string, d: unknown): number {
  if (typeof d !== 'number' || !Number.isInteger(d) || d < 1) throw numberError(fn, 'd', 'a positive integer', d);
  if (d > MAX_WIDTH) throw new RangeError(RULES.widthAtMost(fn, MAX_WIDTH, d));
  return d;
}

export function checkRows(fn: string, x: { length: number }, d: number, name = 'x'): number {
  if (x.length % d !== 0) {
    throw new RangeError(
      `${fn}: ${name}.length must be a multiple of d = ${d}, got ${x.length} (${Math.floor(x.length / d)} rows and ${x.length % d} left over)`,
    );
  }
  return x.length / d;
}

export function checkEps(fn: string, eps: unknown, name = 'eps'): number {
  if (eps === undefined) return 1e-5;
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps < 0) {
    throw numberError(fn, name, 'a finite number >= 0', eps);
  }
  return eps;
}

export function checkParam(fn: string, name: 'gamma' | 'beta', value: unknown, d: number): Float32Array | null {
  if (value === undefined || value === null) return null;
  const arr = checkFloat32Array(fn, name, value);
  if (arr.length !== d) {
    throw new RangeError(RULES.lengthD(fn, name, d, arr.length));
  }
  return arr;
}

export function checkOptions(fn: string, options: unknown): Record<string, unknown> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new TypeError(RULES.mustBe(fn, 'options', 'an object', options));
  return options as Record<string, unknown>;
}

/** True when a and b share at least one byte. */
export function sharesMemory(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return (
    a.buffer === b.buffer && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength
  );
}

/** True when a and b share memory but are not the same range (in place needs identical ranges). */
export function partiallyOverlaps(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return sharesMemory(a, b) && !(a.byteOffset === b.byteOffset && a.byteLength === b.byteLength);
}
