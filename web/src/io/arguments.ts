/**
 * Argument and option checks of the I/O functions, by the rule of the numeric API
 * (web/src/checks/validate.ts): a value of the wrong type is a TypeError, a value of the right type but
 * out of bounds a RangeError, and a string outside a fixed set of names (a dtype, a format) a
 * TypeError, as for Web API enumerations. Every message reads `fn: name must be X, got Y`.
 * The functions check at their entry, so a bad option fails before anything is read, not as an
 * engine error ("onProgress is not a function") halfway through a download.
 */

import { RULES, oneOf } from '../checks/rules.js';
import { checkOptions, isDetached, numberError } from '../checks/validate.js';
import type { ByteSourceInput, ByteSourceOptions } from './source-types.js';

export function isBlob(value: unknown): value is Blob {
  return typeof Blob !== 'undefined' && value instanceof Blob;
}

/** What `openByteSource` can open (a URL string is checked for its scheme when it is opened). */
export function isByteSourceInput(value: unknown): value is ByteSourceInput {
  return (
    typeof value === 'string' ||
    value instanceof URL ||
    isBlob(value) ||
    value instanceof ArrayBuffer ||
    ArrayBuffer.isView(value)
  );
}

export const BYTE_SOURCE = 'an http(s) URL, a Blob/File, an ArrayBuffer or a typed array';

export function checkByteSourceInput(fn: string, name: string, value: unknown): ByteSourceInput {
  if (!isByteSourceInput(value)) throw new TypeError(RULES.mustBe(fn, name, BYTE_SOURCE, value));
  checkLive(fn, name, value);
  return value;
}

/**
 * Bytes that are still there: a transferred ArrayBuffer (or a view of one) cannot even be wrapped
 * in a Uint8Array, which would otherwise fail with the engine's "Cannot perform Construct on a
 * detached ArrayBuffer".
 */
export function checkLive(fn: string, name: string, value: unknown): void {
  const buffer = value instanceof ArrayBuffer ? value : ArrayBuffer.isView(value) ? value.buffer : null;
  if (buffer === null || buffer.byteLength > 0 || !isDetached(buffer)) return;
  const what = value instanceof ArrayBuffer ? 'a detached ArrayBuffer' : 'a view of a detached ArrayBuffer';
  throw new TypeError(`${fn}: ${name} is ${what} (it was transferred); pass bytes that are still live`);
}

/** A name from a fixed set; anything else (another string included) is a TypeError. */
export function checkName<T extends string>(fn: string, name: string, value: unknown, names: readonly T[]): T {
  if (names.includes(value as T)) return value as T;
  throw new TypeError(RULES.mustBe(fn, name, oneOf(names), value));
}

export function checkString(fn: string, name: string, value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(RULES.mustBe(fn, name, 'a string', value));
  return value;
}

function checkFunction(fn: string, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new TypeError(RULES.mustBe(fn, name, 'a function', value));
  }
}

/** Request headers as a plain object of strings (a `Headers` instance would spread to nothing). */
function checkHeaders(fn: string, value: unknown): void {
  if (value === undefined) return;
  const proto = typeof value === 'object' && value !== null ? Object.getPrototypeOf(value) : undefined;
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(RULES.mustBe(fn, 'headers', 'a plain object of header names to strings', value));
  }
  for (const [key, v] of Object.entries(value as object)) {
    if (typeof v !== 'string') throw new TypeError(RULES.mustBe(fn, `headers[${JSON.stringify(key)}]`, 'a string', v));
  }
}

/** The options every reader of a byte source takes (`ByteSourceOptions`). */
export function checkByteSourceOptions(fn: string, options: unknown): ByteSourceOptions & Record<string, unknown> {
  const o = checkOptions(fn, options);
  if (o.signal !== undefined && !(typeof AbortSignal !== 'undefined' && o.signal instanceof AbortSignal)) {
    throw new TypeError(RULES.mustBe(fn, 'signal', 'an AbortSignal', o.signal));
  }
  checkFunction(fn, 'onProgress', o.onProgress);
  checkFunction(fn, 'fetch', o.fetch);
  checkHeaders(fn, o.headers);
  const max = o.maxWholeBodyBytes;
  if (max !== undefined && !(typeof max === 'number' && Number.isSafeInteger(max) && max >= 0)) {
    throw numberError(fn, 'maxWholeBodyBytes', 'an integer >= 0', max);
  }
  return o;
}
