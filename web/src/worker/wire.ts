/**
 * What crosses postMessage between the caller's thread and the worker: the messages, arguments
 * that structured cloning cannot carry as themselves, and errors.
 *
 * Arguments are validated by the runtime inside the worker, so a bad argument must arrive as
 * something the runtime judges exactly as it would judge the original. Structured cloning fails on
 * some (a Proxy, a function, a typed array on a detached buffer) and changes others (a class
 * instance arrives as a plain object): those travel as stand-ins that the worker turns back into
 * values with the same type, constructor name and length, so the error message is the same.
 */
import { DisposedError, UnsupportedError, WasmLoadError } from '../errors.js';
import { FetchError, FormatError } from '../io/errors.js';
import { isDetached } from '../checks/validate.js';

// ---- messages

/** A call of a runtime method (handle 0) or of a method of a resident object the worker holds. */
export interface CallMessage {
  type: 'call';
  id: number;
  handle: number;
  method: string;
  args: unknown[];
  /** Post progress messages after each slice of rows. */
  progress: boolean;
  /** The call can be cancelled: look for an abort message between slices. */
  abortable: boolean;
  /** Option keys whose arrays the caller wants back after the call (copied in, filled, returned). */
  fills: string[];
}

export type ToWorker =
  | { type: 'init'; options: Record<string, unknown> }
  | CallMessage
  | { type: 'abort'; id: number }
  | { type: 'release'; handle: number };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'init-done'; backend: string; kernel: string }
  | { type: 'init-failed'; error: WireError }
  | { type: 'result'; id: number; value: unknown; fills: Record<string, unknown> }
  | { type: 'error'; id: number; error: WireError }
  | { type: 'progress'; id: number; done: number; total: number };

// ---- arguments

const STAND_IN = '\u0000layernorm-wasm stand-in';

type StandIn =
  | { [STAND_IN]: 'detached'; ctor: string }
  | { [STAND_IN]: 'fake'; ctor: string }
  | { [STAND_IN]: 'object'; ctor: string }
  | { [STAND_IN]: 'function'; name: string }
  | { [STAND_IN]: 'symbol'; description: string | undefined };

/** Values that structured cloning carries as themselves (same type, same constructor). */
const CLONEABLE: Array<abstract new (...args: never[]) => unknown> = [
  Date,
  RegExp,
  Map,
  Set,
  ArrayBuffer,
  Boolean,
  Number,
  String,
  Error,
  WebAssembly.Module,
];
if (typeof Blob === 'function') CLONEABLE.push(Blob);
if (typeof SharedArrayBuffer === 'function') CLONEABLE.push(SharedArrayBuffer);

const TYPED_ARRAYS = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];
// A valid activation type where the engine has it.
const Float16 = (globalThis as { Float16Array?: (typeof TYPED_ARRAYS)[number] }).Float16Array;
if (Float16) TYPED_ARRAYS.push(Float16);

/** Whether a view's buffer was detached (transferred, or wasm memory that grew). */
export function isDetachedView(view: ArrayBufferView): boolean {
  return view.byteLength === 0 && isDetached(view.buffer);
}

function ctorName(value: object): string {
  const ctor = (value as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === 'string' && ctor.name ? ctor.name : 'Object';
}

/**
 * How deep arguments are walked: an options object, an object in it (layerNormalization's
 * `{ data, shape }` gamma), and an array in that (its shape).
 */
const ARGUMENT_DEPTH = 3;

/**
 * One argument (or option value) made safe to post; `depth` bounds the walk through plain objects
 * and arrays.
 */
export function encodeValue(value: unknown, depth = ARGUMENT_DEPTH): unknown {
  if (typeof value === 'function') return { [STAND_IN]: 'function', name: value.name } satisfies StandIn;
  if (typeof value === 'symbol') return { [STAND_IN]: 'symbol', description: value.description } satisfies StandIn;
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value)) {
    return isDetachedView(value) ? ({ [STAND_IN]: 'detached', ctor: ctorName(value) } satisfies StandIn) : value;
  }
  // Passes `instanceof Float32Array` without being a typed array: a Proxy or an Object.create result.
  const fake = TYPED_ARRAYS.find((T) => value instanceof T);
  if (fake) return { [STAND_IN]: 'fake', ctor: fake.name } satisfies StandIn;
  if (Array.isArray(value)) {
    // Array.from also reads a Proxy of an array, which cloning refuses.
    return depth > 0 ? Array.from(value, (v) => encodeValue(v, depth - 1)) : new Array(value.length);
  }
  if (CLONEABLE.some((T) => value instanceof T)) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    if (depth <= 0) return {};
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = encodeValue((value as Record<string, unknown>)[key], depth - 1);
    return out;
  }
  return { [STAND_IN]: 'object', ctor: ctorName(value) } satisfies StandIn;
}

/** The worker's side of encodeValue: stand-ins become values the runtime judges like the originals. */
export function decodeValue(value: unknown, depth = ARGUMENT_DEPTH): unknown {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return depth > 0 ? value.map((v) => decodeValue(v, depth - 1)) : value;
  const kind = (value as Record<string, unknown>)[STAND_IN];
  if (kind === undefined) {
    if (Object.getPrototypeOf(value) !== Object.prototype || depth <= 0) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = decodeValue(v, depth - 1);
    return out;
  }
  const s = value as StandIn;
  switch (s[STAND_IN]) {
    case 'detached': {
      const T = TYPED_ARRAYS.find((t) => t.name === s.ctor) ?? Float32Array;
      const view = new T(0);
      structuredClone(view.buffer, { transfer: [view.buffer] });
      return view;
    }
    case 'fake': {
      const T = TYPED_ARRAYS.find((t) => t.name === s.ctor) ?? Float32Array;
      return Object.create(T.prototype);
    }
    case 'object':
      return Object.create(namedClass(s.ctor).prototype);
    case 'function':
      return { [s.name]: () => undefined }[s.name];
    case 'symbol':
      return Symbol(s.description);
  }
}

function namedClass(name: string): new () => object {
  const global = (globalThis as Record<string, unknown>)[name];
  if (typeof global === 'function' && (global as { prototype?: unknown }).prototype) return global as new () => object;
  return { [name]: class {} }[name]!;
}

// ---- errors

export interface WireError {
  name: string;
  message: string;
  stack?: string;
  /** Own data fields (FormatError's line and column, FetchError's url and status, …). */
  fields: Record<string, string | number | boolean | null | undefined>;
  cause?: WireError | string;
}

export function encodeError(error: unknown, depth = 1): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: WireError['fields'] = {};
  for (const [key, v] of Object.entries(error)) {
    if (key === 'name' || key === 'message' || key === 'stack' || key === 'cause') continue;
    if (v === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof v)) fields[key] = v as never;
  }
  const wire: WireError = { name: error.name, message: error.message, stack: error.stack, fields };
  if (error.cause !== undefined) {
    wire.cause = depth > 0 && error.cause instanceof Error ? encodeError(error.cause, depth - 1) : String(error.cause);
  }
  return wire;
}

/** Classes errors are rebuilt as, by name; the built-ins first so `instanceof` works across bundles. */
const ERROR_CLASSES: Record<string, new (message?: string) => Error> = {
  Error,
  TypeError,
  RangeError,
  EvalError,
  SyntaxError,
  ReferenceError,
  URIError,
  DisposedError,
  UnsupportedError,
  WasmLoadError: WasmLoadError as unknown as new (message?: string) => Error,
  FormatError: FormatError as unknown as new (message?: string) => Error,
  FetchError: FetchError as unknown as new (message?: string) => Error,
};

/** The error as the caller's thread sees it: same class, name, message and fields. */
export function decodeError(wire: WireError): Error {
  const Class = ERROR_CLASSES[wire.name] ?? Error;
  // Built through Error so that classes with other constructor signatures get the message as is.
  const error: Error = Reflect.construct(Error, [wire.message], Class);
  if (error.name !== wire.name)
    Object.defineProperty(error, 'name', { value: wire.name, writable: true, configurable: true });
  Object.assign(error, wire.fields);
  if (wire.cause !== undefined) {
    const cause = typeof wire.cause === 'string' ? wire.cause : decodeError(wire.cause);
    Object.defineProperty(error, 'cause', { value: cause, writable: true, configurable: true });
  }
  // Where it was thrown (inside the worker) says more than where the reply was read.
  if (wire.stack) error.stack = wire.stack;
  return error;
}
