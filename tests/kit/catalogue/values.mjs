// What the case tables share: the messages' recurring phrases, how a value is written in a case's
// name and described in a message, and `andThen`, which lets one case run against a runtime whose
// methods return values (init()'s) or promises (initWorker()'s).

/** f(v), or f of what v resolves to when v is a promise. */
export const andThen = (v, f) => (v instanceof Promise ? v.then(f) : f(v));

export const X_KINDS = "x must be a Float32Array, a Float16Array, or a Uint16Array with dtype 'float16' or 'bfloat16'";
export const DETACHED =
  'is a view of a detached ArrayBuffer (it was transferred, or it is a wasm memory view taken before memory grew); pass a live';
export const LOOKALIKE = (type) =>
  `got an object that only inherits from ${type}.prototype (a Proxy or Object.create result, not a typed array)`;
export const DTYPES = "dtype must be 'float32', 'float16' or 'bfloat16'";
export const NO_DTYPE = "x is a Uint16Array: say which 16-bit type its bits are with dtype: 'float16' or 'bfloat16'";
export const BYTES = 'an http(s) URL, a Blob/File, an ArrayBuffer or a typed array';
export const GONE = '(it was transferred); pass bytes that are still live';

/** A value as a case's name writes it: 3n, "3", null, {}. */
export const show = (v) =>
  typeof v === 'bigint' ? `${v}n` : typeof v === 'string' || typeof v === 'object' ? JSON.stringify(v) : String(v);

/** A value as the package's messages describe it after "got" (errors.ts's describe()). */
export const described = (v) =>
  v === null || v === undefined
    ? String(v)
    : typeof v === 'object'
      ? 'Object'
      : typeof v === 'boolean'
        ? 'boolean'
        : `${typeof v} ${show(v)}`;
