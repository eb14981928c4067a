// The api target's generators of single argument values: arrays of every element type, views of
// wasm memory, detached, shared and look-alike arrays, and odd scalars.
import fc from 'fast-check';
import { StaleView, WasmView } from './views.mjs';

const TYPED = [
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

function detachedOf(T, n) {
  const a = new T(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

/** len floats: any float32 (NaN, ±Inf, subnormals) when short; a seeded pattern when long. */
export function floats(len) {
  if (len <= 64) return fc.float32Array({ minLength: len, maxLength: len });
  return fc.integer({ min: 0, max: 999 }).map((seed) => {
    const a = new Float32Array(len);
    for (let i = 0; i < len; i++) a[i] = seed / 100 + (i % 13) * 0.25;
    return a;
  });
}

/** len 16-bit patterns: any (NaN, Inf and subnormal patterns of both types) when short. */
function halves(len) {
  if (len <= 64)
    return fc
      .array(fc.integer({ min: 0, max: 0xffff }), { minLength: len, maxLength: len })
      .map((a) => Uint16Array.from(a));
  return fc
    .integer({ min: 0, max: 999 })
    .map((seed) => Uint16Array.from({ length: len }, (_, i) => 0x3c00 + ((seed + i * 7) % 0x400)));
}

/** len float64 values, as the statistics options take them. */
export function doubles(len) {
  return fc.constantFrom(0, 1, -1).map((v) => new Float64Array(len).fill(v));
}

/** Views of wasm memory of length len, placed so that arguments of a call often overlap. */
export function wasmView(len, type = 'f32') {
  const f64 = type === 'f64';
  return fc
    .constantFrom(0, 1, 5, len, 2 * len + 3)
    .map((at) => new WasmView(f64 ? at : type === 'u16' ? 2 * at + (at % 2) : at, len, type));
}

/** Arrays of the activations' kind: Float32Array for float32, Uint16Array bits for the 16-bit types. */
export function activations(kind, len) {
  const type = kind === 'float32' ? 'f32' : 'u16';
  return fc.oneof(
    { weight: 3, arbitrary: kind === 'float32' ? floats(len) : halves(len) },
    { weight: 2, arbitrary: wasmView(len, type) },
  );
}

/** Values of every kind; `d` and `rows` bias lengths towards ones that pass the shape checks. */
export function anyValue(d, rows) {
  const n = d * rows;
  return fc.oneof(
    { weight: 6, arbitrary: floats(n) },
    { weight: 3, arbitrary: floats(d) },
    { weight: 2, arbitrary: fc.float32Array({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.oneof(halves(n), halves(d)) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        wasmView(n),
        wasmView(d),
        wasmView(n, 'u16'),
        wasmView(rows, 'f64'),
        fc.constant(new StaleView()),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        null,
        true,
        false,
        0,
        -0,
        NaN,
        Infinity,
        -Infinity,
        1e308,
        -1,
        1.5,
        2 ** 28,
        2 ** 29,
        2 ** 31,
        2 ** 32,
        2 ** 53,
        Number.MAX_SAFE_INTEGER,
        Number.MIN_VALUE,
        '',
        'abc',
        '3',
        '1e-5',
        'float16',
        10n,
        Symbol('s'),
        {},
        [],
        () => 1,
      ),
    },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.integer({ min: -3, max: 70 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
    { weight: 1, arbitrary: fc.array(fc.double(), { maxLength: Math.min(n + 1, 64) }) },
    {
      weight: 2,
      arbitrary: fc.array(fc.oneof(fc.double(), fc.constantFrom('1', 1n, null, undefined)), { maxLength: 8 }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.integer({ min: 0, max: TYPED.length - 1 }), fc.constantFrom(0, 1, d, n, n + 1, rows))
        .map(([k, len]) => new TYPED[k](len)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(Float32Array, Uint16Array, Float64Array), fc.constantFrom(n, d, rows, 0, 3))
        .map(([T, len]) => detachedOf(T, len)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(n, d).map((len) => {
        const a = new Float32Array(new SharedArrayBuffer(4 * len));
        for (let i = 0; i < len; i++) a[i] = i % 7;
        return a;
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom(n, d).map((len) => new Float32Array(len + 3).subarray(1, 1 + len)) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('proto', 'proxy', 'proxy16', 'proxy64', 'object', 'nullproto', 'f32-subclass')
        .map((kind) => {
          switch (kind) {
            case 'proto':
              return Object.create(Float32Array.prototype);
            case 'proxy':
              return new Proxy(new Float32Array(n), {});
            case 'proxy16':
              return new Proxy(new Uint16Array(n), {});
            case 'proxy64':
              return new Proxy(new Float64Array(rows), {});
            case 'object':
              return { length: n, 0: 1 };
            case 'nullproto':
              return Object.create(null);
            default:
              return new (class Sub extends Float32Array {})(n);
          }
        }),
    },
  );
}
