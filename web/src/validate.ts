/** Argument checks shared by every entry point: each failure says what was expected and what came. */
import { describe } from './errors.js';

/** Largest width accepted: one row must fit in wasm32 memory (2 GiB) with room to spare. */
export const MAX_WIDTH = 2 ** 28;

export function checkFloat32Array(fn: string, name: string, value: unknown): Float32Array {
  if (!(value instanceof Float32Array)) {
    throw new TypeError(`${fn}: ${name} must be a Float32Array, got ${describe(value)}`);
  }
  // instanceof only looks at the prototype chain: a Proxy of a Float32Array or an object made with
  // Object.create(Float32Array.prototype) passes it, then fails on the first element access.
  if (!ArrayBuffer.isView(value)) {
    throw new TypeError(
      `${fn}: ${name} must be a Float32Array, got an object that only inherits from Float32Array.prototype (a Proxy or Object.create result, not a typed array)`,
    );
  }
  if (value.length === 0 && isDetached(value.buffer)) {
    throw new TypeError(
      `${fn}: ${name} is a view of a detached ArrayBuffer (it was transferred, or it is a wasm memory view taken before memory grew); pass a live Float32Array`,
    );
  }
  return value;
}

/** Only a zero-length view can sit on a detached buffer; constructing a view on one throws. */
function isDetached(buffer: ArrayBufferLike): boolean {
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

export function checkWidth(fn: string, d: unknown): number {
  if (typeof d !== 'number' || !Number.isInteger(d) || d < 1) {
    throw new RangeError(`${fn}: d must be a positive integer, got ${describe(d)}`);
  }
  if (d > MAX_WIDTH) {
    throw new RangeError(`${fn}: d must be at most ${MAX_WIDTH} (one row must fit in wasm memory), got ${d}`);
  }
  return d;
}

export function checkRows(fn: string, x: Float32Array, d: number): number {
  if (x.length % d !== 0) {
    throw new RangeError(
      `${fn}: x.length must be a multiple of d = ${d}, got ${x.length} (${Math.floor(x.length / d)} rows and ${x.length % d} left over)`,
    );
  }
  return x.length / d;
}

export function checkEps(fn: string, eps: unknown): number {
  if (eps === undefined) return 1e-5;
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps < 0) {
    throw new RangeError(`${fn}: eps must be a finite number >= 0, got ${describe(eps)}`);
  }
  return eps;
}

export function checkParam(fn: string, name: 'gamma' | 'beta', value: unknown, d: number): Float32Array | null {
  if (value === undefined || value === null) return null;
  const arr = checkFloat32Array(fn, name, value);
  if (arr.length !== d) {
    throw new RangeError(`${fn}: ${name} must have length d = ${d}, got length ${arr.length}`);
  }
  return arr;
}

export function checkOut(fn: string, out: unknown, length: number): Float32Array | null {
  if (out === undefined) return null;
  const arr = checkFloat32Array(fn, 'out', out);
  if (arr.length !== length) {
    throw new RangeError(`${fn}: out must have length ${length} (the same as x), got length ${arr.length}`);
  }
  return arr;
}

export function checkOptions(fn: string, options: unknown): Record<string, unknown> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new TypeError(`${fn}: options must be an object, got ${describe(options)}`);
  return options as Record<string, unknown>;
}

/** True when a and b share memory but are not the same range (in-place needs identical ranges). */
export function partiallyOverlaps(a: Float32Array, b: Float32Array): boolean {
  if (a.buffer !== b.buffer) return false;
  if (a.byteOffset === b.byteOffset && a.length === b.length) return false;
  return a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}

export interface CheckedCall {
  rows: number;
  gamma: Float32Array | null;
  beta: Float32Array | null;
  eps: number;
  options: Record<string, unknown>;
}

/** The checks every `(x, d, { gamma, beta, eps })` entry point makes, in order. */
export function checkCall(fn: string, x: unknown, d: unknown, options: unknown): CheckedCall {
  const input = checkFloat32Array(fn, 'x', x);
  const width = checkWidth(fn, d);
  const rows = checkRows(fn, input, width);
  const o = checkOptions(fn, options);
  return {
    rows,
    gamma: checkParam(fn, 'gamma', o.gamma, width),
    beta: checkParam(fn, 'beta', o.beta, width),
    eps: checkEps(fn, o.eps),
    options: o,
  };
}
